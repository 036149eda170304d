// The phone page: photo → reading → hand drawn as tiles → corrections → instant rescoring.
// Plain ES module, no framework, no CDN. Talks to /v1/photos/score once per photo and to
// /v1/hands/score on every change (the hand is kept here as tiles, sent as CONTRACTS §1).
import { STRINGS, tileName } from "./i18n.js";

const $ = (sel) => document.querySelector(sel);
const SUITS = ["m", "p", "s", "z"];
const ALL_TILES = [
  ..."1234567890".split("").map((n) => `${n}m`),
  ..."1234567890".split("").map((n) => `${n}p`),
  ..."1234567890".split("").map((n) => `${n}s`),
  ..."1234567".split("").map((n) => `${n}z`),
];
const FLAGS = ["riichi", "double_riichi", "ippatsu", "rinshan", "chankan", "haitei", "houtei", "tenhou", "chiihou", "renhou"];

const state = {
  lang: localStorage.getItem("tsumo.lang") || ((navigator.language || "en").startsWith("ja") ? "ja" : "en"),
  rules: localStorage.getItem("tsumo.rules") || "tenhou",
  rulesList: [],
  ctx: {
    win: "ron", discarder: null, round_wind: "E", seat_wind: "E",
    dora_indicators: [], ura_indicators: [], honba: 0, kyotaku: 0, nukidora: 0,
    ...Object.fromEntries(FLAGS.map((f) => [f, false])),
  },
  hand: { closed: [], win: null, melds: [] }, // closed: tiles without the winning tile
  uncertain: new Set(), // tile codes the reader was unsure of
  candidates: [], // winning tiles the reader could not choose between (or the waits of 13 tiles)
  reading: null,
  image: null,
  result: null,
  error: null,
  scoring: null, // AbortController of the request in flight
};

const T = () => STRINGS[state.lang];

// ---- tiles ----------------------------------------------------------------------------------
export function parseTiles(text) {
  const out = [];
  let digits = [];
  for (const ch of text.replace(/\s+/g, "")) {
    if (/[0-9]/.test(ch)) digits.push(ch);
    else if (SUITS.includes(ch) && digits.length) { for (const d of digits) out.push(d + ch); digits = []; }
    else return null;
  }
  return digits.length ? null : out;
}

export function formatTiles(tiles) {
  let out = "";
  let run = "";
  let suit = null;
  for (const t of tiles) {
    if (t[1] !== suit && suit !== null) { out += run + suit; run = ""; }
    suit = t[1];
    run += t[0];
  }
  return suit === null ? "" : out + run + suit;
}

const rank = (t) => SUITS.indexOf(t[1]) * 20 + (t[0] === "0" ? 5.5 : Number(t[0]));
const sortTiles = (tiles) => [...tiles].sort((a, b) => rank(a) - rank(b));
const sameTile = (a, b) => a[1] === b[1] && (a[0] === "0" ? "5" : a[0]) === (b[0] === "0" ? "5" : b[0]);

function tileImg(code) {
  const img = document.createElement("img");
  img.src = `/static/tiles/${code}.png`;
  img.alt = "";
  img.draggable = false;
  return img;
}

function tileButton(code, { side = false, double = false, cls = "", label = null } = {}) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = `tile ${side ? "side" : ""} ${double ? "double" : ""} ${cls}`;
  b.dataset.tile = code;
  b.setAttribute("aria-label", label || tileName(code, state.lang));
  b.append(tileImg(code));
  if (double) b.append(tileImg(code));
  return b;
}

// ---- the hand as CONTRACTS §1 ---------------------------------------------------------------
function handFromContract(h) {
  const closed = parseTiles(h.concealed || "") || [];
  let win = null;
  if (h.win_tile) {
    const i = closed.lastIndexOf(h.win_tile);
    if (i >= 0) { closed.splice(i, 1); win = h.win_tile; }
  }
  const melds = (h.melds || []).map((m) => ({
    kind: m.kind, tiles: parseTiles(m.tiles) || [], called: m.called || null, from: m.from || null,
  }));
  return { closed: sortTiles(closed), win, melds };
}

function contractHand() {
  const { closed, win, melds } = state.hand;
  const hand = {
    rules: state.rules,
    concealed: formatTiles(win ? [...closed, win] : closed),
    win_tile: win,
    melds: melds.map((m) => {
      const out = { kind: m.kind, tiles: formatTiles(m.tiles) };
      if (m.kind !== "ankan") { if (m.called) out.called = m.called; if (m.from) out.from = m.from; }
      return out;
    }),
    ...contextFields(),
  };
  return hand;
}

function contextFields() {
  const c = state.ctx;
  const out = { win: c.win, round_wind: c.round_wind, seat_wind: c.seat_wind,
                dora_indicators: c.dora_indicators, honba: c.honba, kyotaku: c.kyotaku };
  for (const f of FLAGS) if (c[f]) out[f] = true;
  if (c.riichi || c.double_riichi) out.ura_indicators = c.ura_indicators;
  if (c.win === "ron" && c.discarder) out.discarder = c.discarder;
  if (players() === 3 && c.nukidora) out.nukidora = c.nukidora;
  return out;
}

const players = () => (state.rulesList.find((r) => r.name === state.rules) || { players: 4 }).players;

// ---- rendering ------------------------------------------------------------------------------
function renderCandidates() {
  const row = $("#candidates");
  row.querySelectorAll(".tile").forEach((b) => b.remove());
  const shown = state.candidates.filter((c) => c !== state.hand.win);
  row.hidden = shown.length === 0;
  for (const code of shown) {
    const b = tileButton(code, { cls: "small", label: `${T().setWin}: ${tileName(code, state.lang)}` });
    b.dataset.candidate = code;
    b.addEventListener("click", () => chooseWin(code));
    row.append(b);
  }
}

/** Make `code` the winning tile: one of the closed tiles, or (13 tiles read) the missing one. */
function chooseWin(code) {
  const h = state.hand;
  const i = h.closed.indexOf(code);
  if (i >= 0) { setWin(i); return; }
  if (h.win) h.closed = sortTiles([...h.closed, h.win]);
  h.win = code;
  changed();
}

function renderHand() {
  renderCandidates();
  const box = $("#hand");
  box.replaceChildren();
  const { closed, win, melds } = state.hand;
  if (!closed.length && !win && !melds.length) {
    const p = document.createElement("span");
    p.className = "empty-hand";
    p.textContent = T().emptyHand;
    box.append(p);
    return;
  }
  const closedGroup = document.createElement("div");
  closedGroup.className = "group closed";
  closed.forEach((t, i) => {
    const b = tileButton(t, { cls: state.uncertain.has(t) ? "unsure" : "" });
    b.dataset.where = "closed";
    b.dataset.index = i;
    closedGroup.append(b);
  });
  if (win) {
    const gap = document.createElement("span");
    gap.className = "win-gap";
    closedGroup.append(gap);
    const b = tileButton(win, { cls: `win ${state.uncertain.has(win) ? "unsure" : ""}`,
                                label: `${tileName(win, state.lang)} (${T().setWin.replace("★ ", "")})` });
    b.dataset.where = "win";
    closedGroup.append(b);
  }
  box.append(closedGroup);
  melds.forEach((m, mi) => box.append(renderMeld(m, mi)));
}

function sidewaysIndex(m) {
  const n = m.kind === "kakan" ? 3 : m.tiles.length;
  return { left: 0, across: 1, right: n - 1 }[m.from] ?? -1;
}

function renderMeld(m, mi) {
  const g = document.createElement("div");
  g.className = `group meld ${m.kind}`;
  // Show the called tile first in a chi, as it lies on the table.
  let tiles = [...m.tiles];
  if (m.kind === "chi" && m.called) {
    const i = tiles.indexOf(m.called);
    if (i > 0) tiles = [tiles[i], ...tiles.slice(0, i), ...tiles.slice(i + 1)];
  }
  if (m.kind === "kakan") tiles = tiles.slice(0, 3); // the added tile lies on the called one
  const side = m.kind === "ankan" ? -1 : sidewaysIndex(m);
  tiles.forEach((t, ti) => {
    const down = m.kind === "ankan" && (ti === 0 || ti === 3);
    const b = tileButton(down ? "back" : t, {
      side: ti === side, double: m.kind === "kakan" && ti === side,
      label: `${tileName(t, state.lang)} (${T()[m.kind]})`,
    });
    b.dataset.where = "meld";
    b.dataset.meld = mi;
    b.dataset.index = m.tiles.indexOf(t);
    g.append(b);
  });
  return g;
}

function renderIndicators() {
  for (const key of ["dora_indicators", "ura_indicators"]) {
    const box = $(`#${key}`);
    box.replaceChildren();
    state.ctx[key].forEach((t, i) => {
      const b = tileButton(t, { cls: "small", label: T().removeIndicator(tileName(t, state.lang)) });
      b.addEventListener("click", () => { state.ctx[key].splice(i, 1); renderIndicators(); rescore(); });
      box.append(b);
    });
    const add = document.createElement("button");
    add.type = "button";
    add.className = "chip";
    add.textContent = "+";
    add.setAttribute("aria-label", key === "dora_indicators" ? T().addDora : T().addUra);
    add.dataset.add = key;
    add.addEventListener("click", () => openPicker({ kind: "indicator", key }));
    box.append(add);
  }
  $("#ura-field").hidden = !(state.ctx.riichi || state.ctx.double_riichi);
}

function renderContext() {
  document.querySelectorAll(".seg[data-key]").forEach((seg) => {
    const v = state.ctx[seg.dataset.key];
    seg.querySelectorAll("button").forEach((b) => b.setAttribute("aria-pressed", String(b.dataset.value === v)));
  });
  document.querySelectorAll("[data-flag]").forEach((el) => { el.checked = !!state.ctx[el.dataset.flag]; });
  document.querySelectorAll("[data-counter]").forEach((el) => { el.value = state.ctx[el.dataset.counter]; });
  $("#discarder-field").hidden = state.ctx.win !== "ron";
  $("#nukidora-field").hidden = players() !== 3;
  renderIndicators();
}

const fmt = (n) => (typeof n === "number" ? n.toLocaleString(state.lang === "ja" ? "ja-JP" : "en-US") : "–");

function renderResult() {
  const card = $("#result");
  card.className = "card result";
  card.replaceChildren();
  const t = T();
  if (state.error) {
    card.classList.add("error");
    card.innerHTML = `<h2></h2><p class="err"></p>`;
    card.querySelector("h2").textContent = t.cannotScore;
    card.querySelector(".err").textContent = typeof state.error === "function" ? state.error() : state.error;
    return;
  }
  const r = state.result;
  if (!r) return;
  const points = document.createElement("p");
  points.className = "points";
  points.dataset.testid = "points";
  points.textContent = fmt(r.points);
  if (r.limit) {
    const lim = document.createElement("span");
    lim.className = "limit";
    lim.textContent = t.limits[r.limit] || r.limit;
    points.append(lim);
  }
  const hanfu = document.createElement("p");
  hanfu.className = "hanfu";
  hanfu.textContent = r.yakuman
    ? `${t.yakuman} ×${r.yakuman}`
    : `${r.han} ${t.han}${r.fu ? ` ${r.fu} ${t.fu}` : ""}`;
  card.append(points, hanfu);
  card.append(table(t.yaku, (r.yaku || []).map((y) => [
    (state.lang === "ja" && y.name_ja) || y.name,
    y.yakuman ? `${t.yakuman}${y.yakuman > 1 ? ` ×${y.yakuman}` : ""}` : `${y.han} ${t.han}`,
  ])));
  // Which payer is the dealer, seen from the winner's seat (East is the dealer).
  const dealerSeat = { S: "left", W: "across", N: "right" }[state.ctx.seat_wind];
  const pays = Object.entries(r.payments || {}).map(([who, amount]) => [
    `${t.payer[who] || who}${who === dealerSeat ? ` (${t.dealerMark})` : ""}`, fmt(amount)]);
  pays.push([t.total, fmt(r.total)]);
  card.append(table(t.payments, pays));
}

function table(title, rows) {
  const frag = document.createDocumentFragment();
  const h = document.createElement("h3");
  h.textContent = title;
  const tbl = document.createElement("table");
  for (const [a, b] of rows) {
    const tr = tbl.insertRow();
    tr.insertCell().textContent = a;
    const c = tr.insertCell();
    c.className = "num";
    c.textContent = b;
  }
  frag.append(h, tbl);
  return frag;
}

function applyLanguage() {
  document.documentElement.lang = state.lang;
  const t = T();
  document.querySelectorAll("[data-i18n]").forEach((el) => {
    const v = t[el.dataset.i18n];
    if (typeof v === "string") el.textContent = v;
  });
  document.querySelectorAll("[data-i18n-label]").forEach((el) => {
    const v = t[el.dataset.i18nLabel];
    if (typeof v === "string") el.setAttribute("aria-label", v);
  });
  const lang = $("#lang"); // named by its text, in the language it names
  lang.textContent = state.lang === "ja" ? "English" : "日本語";
  lang.lang = state.lang === "ja" ? "en" : "ja";
  renderStatus();
  renderHand();
  renderContext();
  renderResult();
  drawBoxes();
}

// The status line is kept as a function of the language, so the language switch redraws it.
let statusLine = { text: () => "", error: false };
function setStatus(text, isError = false) {
  statusLine = { text: typeof text === "function" ? text : () => text || "", error: isError };
  renderStatus();
}

function renderStatus() {
  const s = $("#status");
  s.textContent = statusLine.text();
  s.classList.toggle("error", statusLine.error);
}

/** The body of an answer as JSON, or null when it is not JSON (a proxy's HTML error page, say). */
async function readBody(r) {
  const text = await r.text();
  try { return JSON.parse(text); } catch { return null; }
}

/** What went wrong, in words, for an answer that is not ok (or not JSON). */
function describeFailure(status, body) {
  const t = T();
  const detail = body && typeof body === "object" ? body.error || describeError(body) : "";
  const lead = { 413: t.photoTooBig, 415: t.notImage, 503: t.unavailable }[status]
    || (status >= 500 || !body ? t.serverError(status) : "");
  if (lead && detail) return `${lead} — ${detail}`;
  return lead || detail || t.serverError(status);
}

// ---- scoring --------------------------------------------------------------------------------
let rescoreTimer = null;
function rescore() {
  clearTimeout(rescoreTimer);
  rescoreTimer = setTimeout(scoreNow, 80);
}

async function scoreNow() {
  const { closed, win, melds } = state.hand;
  state.scoring?.abort(); // an answer for the hand as it was must not land on the hand as it is
  state.scoring = null;
  if (!closed.length && !win && !melds.length) { state.result = null; state.error = null; renderResult(); return; }
  if (!win) { state.result = null; state.error = () => T().handHint; renderResult(); return; }
  const ctrl = new AbortController();
  state.scoring = ctrl;
  try {
    const r = await fetch("/v1/hands/score", {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify(contractHand()), signal: ctrl.signal,
    });
    const body = await readBody(r);
    if (r.ok && body) { state.result = body; state.error = null; }
    else { state.result = null; const st = r.status; state.error = () => describeFailure(st, body); }
  } catch (e) {
    if (e.name === "AbortError") return;
    state.result = null;
    state.error = () => T().networkError;
  }
  if (state.scoring === ctrl) state.scoring = null;
  renderResult();
}

function describeError(body) {
  if (typeof body.detail === "string") return body.detail;
  if (Array.isArray(body.detail) && body.detail.length) {
    const d = body.detail[0];
    return `${(d.loc || []).filter((x) => x !== "body").join(".")}: ${d.msg}`;
  }
  return JSON.stringify(body);
}

// ---- the photo ------------------------------------------------------------------------------
const PHOTO_RETRIES = 3; // a 503 with Retry-After (busy, or models loading) is sent again this often
const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));
let photoSeq = 0; // the latest photo: an answer for an earlier one is dropped
let lastPhoto = null; // for "Try again"

/** Seconds the server asked us to wait (Retry-After, 1–10), or null when it did not ask. */
function retryAfter(r) {
  const v = Number(r.headers.get("Retry-After"));
  return r.headers.has("Retry-After") && Number.isFinite(v) ? Math.min(10, Math.max(1, Math.ceil(v))) : null;
}

function photoFailed(text, retryable) {
  setStatus(text, true);
  $("#retry-photo").hidden = !retryable;
}

async function onPhoto(file) {
  if (!file) return;
  const seq = ++photoSeq;
  lastPhoto = file;
  $("#retry-photo").hidden = true;
  setStatus(() => T().reading);
  const view = $("#photo-view");
  const img = $("#photo-img");
  if (img.src) URL.revokeObjectURL(img.src);
  img.src = URL.createObjectURL(file);
  img.onerror = () => { view.hidden = true; }; // e.g. HEIC in a browser that cannot show it
  view.hidden = false;
  state.reading = null;
  state.image = null;
  drawBoxes();
  let r;
  let body;
  for (let attempt = 0; ; attempt++) {
    const form = new FormData();
    form.append("photo", file);
    form.append("context", JSON.stringify({ rules: state.rules, ...contextFields() }));
    if ($("#keep").checked) form.append("keep", "true");
    try {
      r = await fetch("/v1/photos/score", { method: "POST", body: form });
      body = await readBody(r);
    } catch (e) {
      if (seq === photoSeq) photoFailed(() => T().networkError, true);
      return;
    }
    if (seq !== photoSeq) return;
    const wait = r.status === 503 ? retryAfter(r) : null;
    if (wait === null || attempt >= PHOTO_RETRIES) break;
    setStatus(() => T().busyRetry(wait));
    await sleep(wait * 1000);
    if (seq !== photoSeq) return;
    setStatus(() => T().reading);
  }
  if (!r.ok || !body?.reading) {
    const st = r.status;
    // (a 503 without Retry-After is a server without models: asking again does not help)
    const retryable = !body || st === 408 || st === 429 || (st >= 500 && (st !== 503 || retryAfter(r) !== null));
    photoFailed(() => describeFailure(st, body), retryable);
    return;
  }
  state.reading = body.reading;
  state.image = body.image;
  const tiles = body.reading.tiles || [];
  state.uncertain = new Set(tiles.filter((t) => (t.confidence ?? 1) < 0.6).map((t) => t.label));
  const reading = body.reading;
  if (Array.isArray(reading.uncertain) && reading.uncertain.length) {
    state.uncertain = new Set(reading.uncertain.map((i) => tiles[i]?.label).filter(Boolean));
  }
  const readHand = body.hand || reading.hand;
  const partial = reading.partial;
  const { closed, win, melds } = state.hand;
  // Nothing at all found (not the hand, a blurred shot): the hand already there is kept.
  const keptHand = !tiles.length && !readHand && !partial?.concealed && (closed.length || win || melds.length);
  const readCandidates = reading.win_tile_candidates || [];
  if (keptHand) {
    state.uncertain = new Set(); // (the hand and its winning-tile choices stay as the user has them)
  } else if (readHand) {
    state.hand = handFromContract(readHand);
    state.candidates = reading.win_tile_source === "assumed" && readCandidates.length >= 2 ? readCandidates : [];
  } else if (partial && partial.concealed) {
    // 13 tiles (and melds) that wait on a tile: the user picks the winning one.
    state.hand = handFromContract({ ...partial, win_tile: null });
    state.candidates = partial.waits || readCandidates;
  } else {
    state.candidates = readCandidates;
    // No legal hand: offer every face-up tile read in the hand, so the user can fix it.
    const faces = tiles.filter((t) => t.in_hand !== false).map((t) => t.label).filter((l) => l && l !== "back");
    state.hand = { closed: sortTiles(faces), win: null, melds: [] };
  }
  const nuki = (readHand || partial || {}).nukidora;
  if (typeof nuki === "number") { state.ctx.nukidora = nuki; renderContext(); }
  const ms = Math.round(body.timings_ms?.total ?? 0);
  const nUncertain = state.uncertain.size;
  const nCandidates = state.candidates.length;
  const changes = (reading.changes || []).map((c) => `${c.read} → ${c.now}`);
  const warnings = Array.isArray(reading.warnings) ? reading.warnings : [];
  setStatus(() => {
    const t = T();
    // what is wrong with the photo itself first: every line after it is only as good as the photo
    let msg = warnings.map((w) => {
      const s = t.photoWarnings?.[w.code];
      return "⚠ " + (typeof s === "function" ? s(w.tile_px) : s || w.message) + " ";
    }).join("");
    msg += t.readDone(tiles.length, ms);
    if (keptHand) msg += " " + (reading.error ? `${reading.error}. ` : "") + t.noTilesKept;
    else if (readHand) {
      if (reading.sure === false) msg += " " + t.unsureReading; // (bent to make a hand: see docs/vision.md)
      if (nUncertain) msg += " " + t.uncertain(nUncertain);
      if (nCandidates) msg += " " + t.pickWin;
    } else if (partial?.waits?.length) msg += " " + t.pickWin;
    else msg += " " + (reading.error ? `${reading.error}. ${t.noHand}` : t.noHand);
    if (changes.length) msg += " " + t.changed(changes.join(", "));
    return msg;
  }, warnings.length > 0 || (!readHand && !partial?.waits?.length));
  drawBoxes();
  renderHand();
  if (keptHand) return;
  if (body.result && !body.result.error) {
    state.scoring?.abort();
    clearTimeout(rescoreTimer);
    state.result = body.result; state.error = null; renderResult();
  } else rescore();
}

function drawBoxes() {
  const svg = $("#photo-boxes");
  svg.replaceChildren();
  const img = state.image;
  const tiles = state.reading?.tiles || [];
  if (!img) return;
  svg.setAttribute("viewBox", `0 0 ${img.width} ${img.height}`);
  svg.setAttribute("preserveAspectRatio", "none");
  const NS = "http://www.w3.org/2000/svg";
  tiles.forEach((t, i) => {
    const [x1, y1, x2, y2] = boxOf(t);
    const conf = t.confidence ?? 1;
    const color = conf >= 0.9 ? "#22c55e" : conf >= 0.6 ? "#f59e0b" : "#ef4444";
    const r = document.createElementNS(NS, "rect");
    r.setAttribute("x", x1); r.setAttribute("y", y1);
    r.setAttribute("width", x2 - x1); r.setAttribute("height", y2 - y1);
    r.setAttribute("stroke", color);
    r.dataset.index = i;
    const title = document.createElementNS(NS, "title");
    title.textContent = `${tileName(t.label || "back", state.lang)} ${Math.round(conf * 100)}%`;
    r.append(title);
    r.addEventListener("click", () => selectFromBox(t, r));
    const label = document.createElementNS(NS, "text");
    label.setAttribute("x", x1);
    label.setAttribute("y", Math.max(0, y1 - 4));
    label.setAttribute("font-size", Math.max(12, (y2 - y1) * 0.3));
    label.textContent = t.label === "back" ? "▮" : t.label || "?";
    svg.append(r, label);
  });
}

function boxOf(t) {
  const b = t.box || t.bbox || [0, 0, 0, 0];
  return Array.isArray(b) ? b : [b.x1, b.y1, b.x2, b.y2];
}

/** Outline on the photo the tiles of the hand that read as `code` (null clears). */
function highlightBoxes(code) {
  const tiles = state.reading?.tiles || [];
  document.querySelectorAll("#photo-boxes rect").forEach((r) => {
    const t = tiles[Number(r.dataset.index)];
    r.classList.toggle("hi", !!code && !!t && t.label === code && t.in_hand !== false);
  });
}

function selectFromBox(t, rect) {
  const btn = [...document.querySelectorAll("#hand .tile")].find((b) => b.dataset.tile === t.label);
  if (btn) btn.click();
}

// ---- the picker sheet -----------------------------------------------------------------------
let picking = null;
let lastTap = null; // the latest pointer click: where and when
let openTap = null; // the tap that opened the picker

/** The second tap of a double tap on what opened the sheet: it lands on whatever tile of the sheet
 * now lies under the finger, and must not pick it. (Keyboard clicks have detail 0.) */
function isEchoTap(e) {
  return !!openTap && e.detail > 0 && e.timeStamp - openTap.t < 500
    && Math.hypot(e.clientX - openTap.x, e.clientY - openTap.y) < 30;
}

function openPicker(target) {
  picking = { ...target };
  openTap = lastTap && performance.now() - lastTap.t < 100 ? lastTap : null;
  const t = T();
  const dlg = $("#picker");
  const actions = $("#picker-actions");
  actions.replaceChildren();
  $("#meld-options").hidden = target.kind !== "new-meld";
  let current = null;
  if (target.kind === "closed" || target.kind === "win") {
    current = target.kind === "win" ? state.hand.win : state.hand.closed[target.index];
    $("#picker-title").textContent = t.pickReplace(tileName(current, state.lang));
    if (target.kind === "closed") actions.append(action(t.setWin, "set-win", () => setWin(target.index)));
    actions.append(action(t.remove, "remove", () => removeTile(target)));
  } else if (target.kind === "meld") {
    current = state.hand.melds[target.meld].tiles[target.index];
    $("#picker-title").textContent = t.pickReplace(tileName(current, state.lang));
    actions.append(action(t.removeMeld, "remove-meld", () => { state.hand.melds.splice(target.meld, 1); changed(); }));
  } else if (target.kind === "new-meld") {
    $("#picker-title").textContent = t.pickMeld;
    picking.meldKind = picking.meldKind || "pon";
    picking.from = picking.from || "across";
    syncMeldOptions();
  } else {
    $("#picker-title").textContent = target.kind === "indicator" ? t.pickIndicator : t.pickAdd;
  }
  highlightBoxes(current);
  const grid = $("#picker-grid");
  grid.replaceChildren();
  for (const code of ALL_TILES) {
    const b = tileButton(code, { cls: code === current ? "current" : "" });
    b.addEventListener("click", () => { pick(code); dlg.close(); });
    grid.append(b);
  }
  if (!dlg.open) dlg.showModal();
}

function action(text, name, fn) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = "chip";
  b.dataset.action = name;
  b.textContent = text;
  b.addEventListener("click", () => { fn(); $("#picker").close(); });
  return b;
}

function syncMeldOptions() {
  for (const [sel, key] of [["#meld-kind", "meldKind"], ["#meld-from", "from"]]) {
    $(sel).querySelectorAll("button").forEach((b) => b.setAttribute("aria-pressed", String(b.dataset.value === picking[key])));
  }
  $("#meld-from").hidden = picking.meldKind === "ankan" || picking.meldKind === "chi";
}

function pick(code) {
  const h = state.hand;
  const p = picking;
  if (!p) return;
  if (p.kind === "closed") { h.closed[p.index] = code; h.closed = sortTiles(h.closed); }
  else if (p.kind === "win") h.win = code;
  else if (p.kind === "add") { if (!h.win) h.win = code; else h.closed = sortTiles([...h.closed, code]); }
  else if (p.kind === "indicator") { state.ctx[p.key].push(code); renderIndicators(); }
  else if (p.kind === "meld") {
    const m = h.melds[p.meld];
    const old = m.tiles[p.index];
    if (m.kind === "chi" || sameTile(old, code)) m.tiles[p.index] = code; // one tile (or red ↔ plain five)
    else m.tiles = m.tiles.map(() => code);
    if (m.called === old || !m.tiles.includes(m.called)) m.called = m.kind === "ankan" ? null : m.tiles[m.kind === "chi" ? p.index : 0];
  } else if (p.kind === "new-meld") {
    h.melds.push(newMeld(p.meldKind, p.from, code));
  }
  changed();
}

function newMeld(kind, from, code) {
  if (kind === "chi") {
    const n = code[0] === "0" ? 5 : Number(code[0]);
    const start = Math.min(Math.max(n, 1), 7);
    const tiles = [0, 1, 2].map((d) => `${start + d}${code[1]}`);
    if (code[0] === "0") tiles[tiles.indexOf(`5${code[1]}`)] = code;
    return { kind, tiles, called: tiles[0], from: "left" };
  }
  const n = kind === "pon" ? 3 : 4;
  const tiles = Array(n).fill(code);
  return kind === "ankan" ? { kind, tiles, called: null, from: null } : { kind, tiles, called: code, from };
}

function returnFocus(p) {
  const tiles = [...document.querySelectorAll("#hand .tile")];
  let el = null;
  if (p.kind === "closed") {
    const closed = tiles.filter((b) => b.dataset.where === "closed");
    el = closed[Math.min(p.index, closed.length - 1)];
  } else if (p.kind === "meld") el = tiles.find((b) => b.dataset.where === "meld" && Number(b.dataset.meld) === p.meld);
  else if (p.kind === "indicator") el = document.querySelector(`[data-add="${p.key}"]`);
  else if (p.kind === "new-meld") el = $("#add-meld");
  else if (p.kind === "add") el = $("#add-tile");
  (el || tiles.find((b) => b.dataset.where === "win") || tiles[0] || $("#add-tile")).focus();
}

function setWin(index) {
  const h = state.hand;
  const chosen = h.closed[index];
  h.closed.splice(index, 1);
  if (h.win) h.closed.push(h.win);
  h.closed = sortTiles(h.closed);
  h.win = chosen;
  changed();
}

function removeTile(target) {
  const h = state.hand;
  if (target.kind === "win") h.win = null;
  else h.closed.splice(target.index, 1);
  changed();
}

function changed() {
  renderHand();
  rescore();
}

// ---- wiring ---------------------------------------------------------------------------------
function wire() {
  document.addEventListener("click", (e) => {
    lastTap = e.detail > 0 ? { x: e.clientX, y: e.clientY, t: e.timeStamp } : null;
  }, true);
  $("#picker").addEventListener("click", (e) => {
    if (isEchoTap(e)) { e.stopPropagation(); e.preventDefault(); }
  }, true);
  $("#lang").addEventListener("click", () => {
    state.lang = state.lang === "ja" ? "en" : "ja";
    localStorage.setItem("tsumo.lang", state.lang);
    applyLanguage();
  });
  $("#photo-input").addEventListener("change", (e) => {
    const file = e.target.files[0];
    e.target.value = ""; // choosing the same photo again (after an error, say) reads it again
    onPhoto(file);
  });
  $("#retry-photo").addEventListener("click", () => onPhoto(lastPhoto));
  $("#hand").addEventListener("click", (e) => {
    const b = e.target.closest(".tile");
    if (!b) return;
    const where = b.dataset.where;
    if (where === "closed") openPicker({ kind: "closed", index: Number(b.dataset.index) });
    else if (where === "win") openPicker({ kind: "win" });
    else if (where === "meld") openPicker({ kind: "meld", meld: Number(b.dataset.meld), index: Number(b.dataset.index) });
  });
  $("#add-tile").addEventListener("click", () => openPicker({ kind: "add" }));
  $("#picker").addEventListener("close", () => {
    highlightBoxes(null);
    // The tile the picker was opened from was redrawn: put the focus back where it was (keyboard).
    const at = document.activeElement;
    if (picking && (!at || at === document.body || at.closest("#picker"))) returnFocus(picking);
  });
  $("#add-meld").addEventListener("click", () => openPicker({ kind: "new-meld" }));
  $("#clear-hand").addEventListener("click", () => {
    state.hand = { closed: [], win: null, melds: [] };
    state.uncertain.clear();
    state.candidates = [];
    changed();
  });
  $("#type-hand").addEventListener("click", () => {
    const f = $("#text-form");
    f.hidden = !f.hidden;
    const { closed, win } = state.hand;
    $("#text-hand").value = formatTiles(win ? [...closed, win] : closed);
    if (!f.hidden) $("#text-hand").focus();
  });
  $("#text-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const tiles = parseTiles($("#text-hand").value.trim());
    if (!tiles || !tiles.length) { setStatus(T().badText, true); return; }
    if ($("#status").classList.contains("error")) setStatus("");
    const win = tiles.pop();
    state.hand = { closed: sortTiles(tiles), win, melds: state.hand.melds };
    state.uncertain.clear();
    state.candidates = [];
    $("#text-form").hidden = true;
    changed();
  });
  document.querySelectorAll(".seg[data-key]").forEach((seg) => seg.addEventListener("click", (e) => {
    const b = e.target.closest("button");
    if (!b) return;
    const key = seg.dataset.key;
    state.ctx[key] = key === "discarder" && state.ctx[key] === b.dataset.value ? null : b.dataset.value;
    renderContext();
    rescore();
  }));
  document.querySelectorAll("[data-flag]").forEach((el) => el.addEventListener("change", () => {
    state.ctx[el.dataset.flag] = el.checked;
    renderContext();
    rescore();
  }));
  document.querySelectorAll("[data-counter]").forEach((el) => el.addEventListener("input", () => {
    const n = Math.max(0, Math.min(Number(el.max || 99), Math.floor(Number(el.value) || 0)));
    state.ctx[el.dataset.counter] = n;
    rescore();
  }));
  $("#rules").addEventListener("change", (e) => {
    state.rules = e.target.value;
    localStorage.setItem("tsumo.rules", state.rules);
    renderContext();
    rescore();
  });
  for (const [sel, key] of [["#meld-kind", "meldKind"], ["#meld-from", "from"]]) {
    $(sel).addEventListener("click", (e) => {
      const b = e.target.closest("button");
      if (b && picking) { picking[key] = b.dataset.value; syncMeldOptions(); }
    });
  }
}

async function loadRules() {
  try {
    const r = await fetch("/v1/rules");
    state.rulesList = await r.json();
  } catch (e) {
    state.rulesList = [{ name: "tenhou", players: 4 }];
  }
  if (!state.rulesList.some((r) => r.name === state.rules)) state.rules = state.rulesList[0]?.name || "tenhou";
  const sel = $("#rules");
  sel.replaceChildren(...state.rulesList.map((r) => {
    const o = document.createElement("option");
    o.value = r.name;
    o.textContent = r.description ? `${r.name} — ${r.description}` : r.name;
    return o;
  }));
  sel.value = state.rules;
}

wire();
applyLanguage();
loadRules().then(renderContext);
