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
  // closed: tiles without the winning tile. closedBox / winBox / a meld's boxes: the photo's box
  // (index into reading.tiles) each tile was read from, or null (typed, added, a new hand)
  hand: emptyHand(),
  uncertain: new Set(), // boxes (indices into reading.tiles) of hand tiles the reader doubts
  candidates: [], // winning tiles the reader could not choose between (or the waits of 13 tiles);
  // dropped once the tiles they were read for are edited (see handEdited): the page cannot tell waits
  candidatesAreWaits: false, // the candidates are the waits of 13 tiles: choosing one adds it
  boxNote: null, // what a tap on a box outside the hand says (a key of STRINGS)
  textError: null, // why the typed hand was refused (a key of STRINGS)
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

function emptyHand() {
  return { closed: [], win: null, melds: [], closedBox: [], winBox: null };
}

/** Sort the closed tiles as players do, each keeping the box it was read from. */
function sortClosed(h) {
  const order = h.closed.map((_, i) => i).sort((a, b) => rank(h.closed[a]) - rank(h.closed[b]) || a - b);
  h.closedBox = order.map((i) => h.closedBox[i] ?? null);
  h.closed = order.map((i) => h.closed[i]);
}

/** Tiles in the hand, the winning tile left out (a kan counts 3): 13 means one tile short. */
const handCount = (h) => h.closed.length + h.melds.reduce((n, m) => n + Math.min(3, m.tiles.length), 0);

/** Is a winning tile chosen now a tile added to the hand (the 14th), not one of its tiles? So when
 * the hand is one tile short, or is the 13 tiles of a photo plus a winning tile chosen among the waits. */
const addsWin = (h) => handCount(h) === 13 && (!h.win || state.candidatesAreWaits);
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
  const melds = (h.melds || []).map((m) => {
    const tiles = parseTiles(m.tiles) || [];
    return { kind: m.kind, tiles, called: m.called || null, from: m.from || null, boxes: tiles.map(() => null) };
  });
  const hand = { closed, win, melds, closedBox: closed.map(() => null), winBox: null };
  sortClosed(hand);
  return hand;
}

const MELD_KINDS = ["chi", "pon", "minkan", "kakan", "ankan"];

/** Tie each tile of `h` (made from `reading`) to the box it was read from, by the reading's groups
 * (closed, drawn, melds) and labels; a tile no box fits keeps null. Boxes outside the hand never tie. */
function attachBoxes(h, reading) {
  const tiles = reading.tiles || [];
  const inHand = (i) => !!tiles[i] && tiles[i].in_hand !== false && !!tiles[i].label;
  const label = (i) => tiles[i].label;
  h.closedBox = h.closed.map(() => null);
  h.winBox = null;
  h.melds.forEach((m) => { m.boxes = m.tiles.map(() => null); });
  const groups = (reading.groups || []).map((g) => ({ kind: g.kind, tiles: (g.tiles || []).filter(inHand) }));
  let concealed = groups.filter((g) => g.kind === "closed").flatMap((g) => g.tiles);
  const drawn = groups.filter((g) => g.kind === "drawn").flatMap((g) => g.tiles);
  // CONTRACTS §1 lists melds in call order, the reverse of the photo's left to right
  const meldGroups = groups.filter((g) => MELD_KINDS.includes(g.kind)).reverse();
  if (!groups.length) concealed = tiles.map((_, i) => i).filter(inHand); // (a reading without groups)
  // The winning tile: the one set apart, else the last closed tile (the reader's rule).
  if (h.win) {
    const pool = drawn.length ? drawn : concealed;
    const at = [...pool].reverse().find((i) => label(i) === h.win) ?? (drawn.length ? drawn[0] : undefined);
    if (at !== undefined) { h.winBox = at; concealed = concealed.filter((i) => i !== at); }
  }
  tieByLabel(h.closed, h.closedBox, concealed, tiles);
  const used = new Set();
  h.melds.forEach((m, k) => {
    let gi = meldGroups.findIndex((g, j) => !used.has(j) && g.kind === m.kind && g.tiles.length === m.tiles.length);
    if (gi < 0 && meldGroups[k] && !used.has(k)) gi = k;
    if (gi < 0) return;
    used.add(gi);
    tieByLabel(m.tiles, m.boxes, meldGroups[gi].tiles, tiles);
  });
}

/** Give each of `codes` a box of `boxes` read as that tile (then as the same tile, red or not; then
 * any left, in order), writing into `out`. */
function tieByLabel(codes, out, boxes, tiles) {
  const left = [...boxes];
  for (const fits of [(c, b) => c === b, (c, b) => !!b && b !== "back" && sameTile(c, b), () => true]) {
    codes.forEach((c, i) => {
      if (out[i] !== null || !left.length) return;
      const k = left.findIndex((b) => fits(c, tiles[b]?.label));
      if (k >= 0) out[i] = left.splice(k, 1)[0];
    });
  }
}

/** Was the tile read from a box of the photo (a box index, not null or undefined)? */
const hasBox = (box) => box !== null && box !== undefined;

/** Where the tile read from box `i` is in the hand, as the picker's target; null when it is not. */
function handTileOfBox(i) {
  const h = state.hand;
  const c = h.closedBox.indexOf(i);
  if (c >= 0) return { kind: "closed", index: c };
  if (h.win && h.winBox === i) return { kind: "win" };
  for (const [mi, m] of h.melds.entries()) {
    const j = (m.boxes || []).indexOf(i);
    if (j >= 0) return { kind: "meld", meld: mi, index: j };
  }
  return null;
}

/** The box a picker target's tile was read from, or null. */
function boxOfTarget(p) {
  const h = state.hand;
  if (p.kind === "closed") return h.closedBox[p.index] ?? null;
  if (p.kind === "win") return h.win ? h.winBox : null;
  if (p.kind === "meld") return h.melds[p.meld]?.boxes?.[p.index] ?? null;
  return null;
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
    b.addEventListener("click", () => {
      chooseWin(code);
      // (the row was redrawn: the keyboard goes on from the new winning tile)
      $('#hand .tile[data-where="win"]')?.focus();
    });
    row.append(b);
  }
}

/** Make `code` the winning tile. A hand one tile short (13 read, the winning tile not in the photo)
 * gets it as a 14th tile, as does a choice among the waits of 13 tiles (replacing the one chosen
 * before); otherwise one of the closed tiles becomes the winning tile. */
function chooseWin(code) {
  const h = state.hand;
  if (addsWin(h)) {
    h.win = code;
    h.winBox = null;
    changed();
    return;
  }
  const i = h.closed.indexOf(code);
  if (i >= 0) { setWin(i); return; }
  if (h.win) { h.closed.push(h.win); h.closedBox.push(h.winBox); sortClosed(h); }
  h.win = code;
  h.winBox = null;
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
  const unsure = (box) => (state.uncertain.has(box) ? "unsure" : ""); // (the set holds box indices only)
  closed.forEach((t, i) => {
    const box = state.hand.closedBox[i];
    const b = tileButton(t, { cls: unsure(box) });
    b.dataset.where = "closed";
    b.dataset.index = i;
    if (hasBox(box)) b.dataset.box = box;
    closedGroup.append(b);
  });
  if (win) {
    const gap = document.createElement("span");
    gap.className = "win-gap";
    closedGroup.append(gap);
    const box = state.hand.winBox;
    const b = tileButton(win, { cls: `win ${unsure(box)}`,
                                label: `${tileName(win, state.lang)} (${T().setWin.replace("★ ", "")})` });
    b.dataset.where = "win";
    if (hasBox(box)) b.dataset.box = box;
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
  // Show the called tile first in a chi, as it lies on the table (each tile by its index in m.tiles).
  let order = m.tiles.map((_, j) => j);
  if (m.kind === "chi" && m.called) {
    const i = m.tiles.indexOf(m.called);
    if (i > 0) order = [i, ...order.filter((j) => j !== i)];
  }
  if (m.kind === "kakan") order = order.slice(0, 3); // the added tile lies on the called one
  const side = m.kind === "ankan" ? -1 : sidewaysIndex(m);
  const boxes = m.boxes || [];
  order.forEach((j, ti) => {
    const t = m.tiles[j];
    const down = m.kind === "ankan" && (ti === 0 || ti === 3);
    const double = m.kind === "kakan" && ti === side;
    const mine = double ? [boxes[j], boxes[3]] : [boxes[j]]; // (the stacked tile is drawn with it)
    const b = tileButton(down ? "back" : t, {
      side: ti === side, double,
      cls: mine.some((x) => state.uncertain.has(x)) ? "unsure" : "",
      label: `${tileName(t, state.lang)} (${T()[m.kind]})`,
    });
    b.dataset.where = "meld";
    b.dataset.meld = mi;
    b.dataset.index = j;
    if (hasBox(boxes[j])) b.dataset.box = boxes[j];
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
      b.addEventListener("click", () => {
        state.ctx[key].splice(i, 1);
        renderIndicators();
        rescore();
        // (the row was redrawn: the keyboard goes on from the next indicator, or the "+")
        const next = $(`#${key}`).querySelectorAll(".tile")[i];
        (next || $(`[data-add="${key}"]`)).focus();
      });
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

/** In 3-player the north seat is empty: no North seat or round, and no one deals in from the seat
 * where north would sit, seen from the winner (East: left, South: across, West: right). */
const EMPTY_SEAT_3P = { E: "left", S: "across", W: "right" };

/** Bring the situation into the rule set's player count: a North seat or round (or a discarder in
 * the empty seat) chosen for 4 players falls back to a choice that exists in 3-player. */
function fitToPlayers() {
  if (players() !== 3) return;
  const c = state.ctx;
  if (c.seat_wind === "N") c.seat_wind = "E";
  if (c.round_wind === "N") c.round_wind = "E";
  if (c.discarder && c.discarder === EMPTY_SEAT_3P[c.seat_wind]) c.discarder = null;
}

/** Does the seat `rel` (left, across, right of the winner) hold a player? Not the empty one in 3-player. */
const seatTaken = (rel) => players() !== 3 || rel !== EMPTY_SEAT_3P[state.ctx.seat_wind];

/** Is this choice of a situation row offered with the rule set's player count? */
function offered(key, value) {
  if (players() !== 3) return true;
  if (key === "seat_wind" || key === "round_wind") return value !== "N";
  if (key === "discarder") return seatTaken(value);
  return true;
}

function renderContext() {
  fitToPlayers();
  document.querySelectorAll(".seg[data-key]").forEach((seg) => {
    seg.querySelectorAll("button").forEach((b) => { b.hidden = !offered(seg.dataset.key, b.dataset.value); });
  });
  $("#three-player-note").hidden = players() !== 3;
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
    // (words, or a server's refusal: then its lead, in the page's language, heads the card, its detail under it)
    const e = typeof state.error === "function" ? state.error() : state.error;
    const [title, text] = typeof e === "string" ? [t.cannotScore, e] : e.detail ? [e.lead, e.detail] : [t.cannotScore, e.lead];
    card.querySelector("h2").textContent = title;
    card.querySelector(".err").textContent = text;
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
  renderBoxNote();
  renderTextError();
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

/** What a tap on an outline outside the hand says, under the photo (null hides it). */
function setBoxNote(key) {
  state.boxNote = key;
  renderBoxNote();
}

function renderBoxNote() {
  const note = $("#box-note");
  note.textContent = state.boxNote ? T()[state.boxNote] : "";
  note.hidden = !state.boxNote;
}

/** Why the typed hand was refused, next to its input (null clears it). */
function setTextError(key) {
  state.textError = key;
  renderTextError();
}

function renderTextError() {
  const err = $("#text-error");
  const input = $("#text-hand");
  err.textContent = state.textError ? T()[state.textError] : "";
  err.hidden = !state.textError;
  if (state.textError) input.setAttribute("aria-invalid", "true");
  else input.removeAttribute("aria-invalid");
}

/** The body of an answer as JSON, or null when it is not JSON (a proxy's HTML error page, say). */
async function readBody(r) {
  const text = await r.text();
  try { return JSON.parse(text); } catch { return null; }
}

/** What went wrong with a request that was not ok (or not JSON); `what` is "photo" or "hand". `lead`, in
 * the page's language, says what could not be done and which field the server named; `detail` is the
 * server's own message ("" when it gave none), shown after it as it is: the API's messages are English. */
function failure(status, body, what) {
  const t = T();
  const json = !!body && typeof body === "object";
  const detail = json ? body.error || describeError(body) : "";
  let lead;
  if (what === "photo" && status === 413) lead = t.photoTooBig;
  else if (what === "photo" && status === 415) lead = t.notImage;
  else if (what === "photo" && status === 503) lead = t.unavailable;
  else if (status >= 500 || !json) lead = t.serverError(status);
  else lead = (what === "photo" ? t.photoRefused : t.handRefused)(failedField(body));
  return { lead, detail };
}

/** The failure as one line (the photo's status line). */
function describeFailure(status, body, what) {
  const { lead, detail } = failure(status, body, what);
  return detail ? `${lead} — ${detail}` : lead;
}

/** The field a refusal names (the first `detail[].loc`, else `error_field`), in the page's language with the
 * server's name for it: "the winning tile (win_tile)", "和了牌（win_tile）"; "" when it names none. */
function failedField(body) {
  const loc = Array.isArray(body.detail) && Array.isArray(body.detail[0]?.loc) ? body.detail[0].loc : null;
  let parts = loc ? loc.filter((x, i) => !(i === 0 && x === "body"))
    : typeof body.error_field === "string" ? [body.error_field] : [];
  if (parts[0] === "context" && parts.length > 1) parts = parts.slice(1); // (a photo's situation field)
  if (!parts.length) return "";
  const name = parts.map((p, i) => (typeof p === "number" ? `[${p}]` : `${i ? "." : ""}${p}`)).join("");
  const label = T().fields[String(parts[0]).match(/^[a-z_]+/i)?.[0]];
  if (!label) return name;
  return label.toLowerCase().includes(name.toLowerCase()) ? label : T().fieldAndName(label, name);
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
    else { state.result = null; const st = r.status; state.error = () => failure(st, body, "hand"); }
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
let lastUpload = null; // { file, upload }: what was made of lastPhoto to send (a reduced photo is made once)
const MiB = 1024 * 1024;
const MAX_SIDE = 4000; // a reduced photo's long side: 12-MP class, the size the reader is measured at
const JPEG_QUALITY = 0.92;
// The server's limit counts the whole request: this much is left for the form's own lines and the context.
const FORM_ROOM = 16 * 1024;

/** The server's photo limit in bytes (put in the page by api/routes/page.py), or null when not known. */
function photoLimit() {
  const v = Number($("#photo-input").dataset.maxPhotoBytes || NaN);
  return Number.isFinite(v) && v > 0 ? v : null;
}

/** Bytes as MB (MiB, as the server counts them) in the page's language: 25.3, 0.67. */
const mb = (n) => (n / MiB).toLocaleString(state.lang === "ja" ? "ja-JP" : "en-US",
                                           { maximumFractionDigits: n < MiB ? 2 : 1 });

/** Would the server refuse `file` as too big (a 413, once it had the whole upload)? */
const overLimit = (file, limit) => limit !== null && file.size + FORM_ROOM > limit;

/** What to send for `file`: the file itself when it fits the server's `limit` (or the limit is not known);
 * else a JPEG drawn from it, `reducedFrom` its size; null when it cannot be made to fit (the browser
 * cannot decode it: HEIC in Chrome, say). */
async function photoUpload(file, limit) {
  if (!overLimit(file, limit)) return { blob: file, name: file.name, reducedFrom: null };
  const jpeg = await reducedJpeg(file, limit - FORM_ROOM);
  if (!jpeg) return null;
  return { blob: jpeg, name: `${(file.name || "photo").replace(/\.[^.]*$/, "")}.jpg`, reducedFrom: file.size };
}

/** `file` decoded (its EXIF orientation applied, as the server does) and drawn as a JPEG of at most `budget`
 * bytes: its long side at most MAX_SIDE, smaller if that is still too big; null if it cannot be decoded. */
async function reducedJpeg(file, budget) {
  let bitmap;
  try {
    bitmap = await createImageBitmap(file, { imageOrientation: "from-image" });
  } catch {
    return null;
  }
  try {
    let scale = Math.min(1, MAX_SIDE / Math.max(bitmap.width, bitmap.height));
    for (let attempt = 0; attempt < 6 && budget > 0; attempt++) {
      const w = Math.max(1, Math.round(bitmap.width * scale));
      const h = Math.max(1, Math.round(bitmap.height * scale));
      const canvas = document.createElement("canvas");
      canvas.width = w;
      canvas.height = h;
      const g = canvas.getContext("2d");
      g.fillStyle = "#fff"; // (a transparent PNG: white under it, not JPEG's black)
      g.fillRect(0, 0, w, h);
      g.imageSmoothingQuality = "high";
      g.drawImage(bitmap, 0, 0, w, h);
      const blob = await new Promise((ok) => canvas.toBlob(ok, "image/jpeg", JPEG_QUALITY));
      canvas.width = canvas.height = 0; // (its pixels freed now: a phone has little memory)
      if (!blob) return null;
      if (blob.size <= budget) return blob;
      // still too big (a low limit): a JPEG's size goes with its pixel count, so shrink by the excess
      scale *= Math.max(0.5, Math.min(0.9, 0.95 * Math.sqrt(budget / blob.size)));
    }
    return null;
  } finally {
    bitmap.close();
  }
}

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
  setBoxNote(null);
  drawBoxes();
  let upload = lastUpload?.file === file ? lastUpload.upload : null; // (Try again: made already)
  if (!upload) {
    const limit = photoLimit();
    if (overLimit(file, limit)) setStatus(() => T().reducing);
    upload = await photoUpload(file, limit);
    if (seq !== photoSeq) return;
    if (!upload) { // (not sent: the server would refuse it, once it had it all)
      photoFailed(() => `${T().photoTooBig} — ${T().photoOverLimit(mb(file.size), mb(limit))}`, false);
      return;
    }
    lastUpload = { file, upload };
  }
  // every line said about this photo ends with its reduction, if it was reduced
  const from = upload.reducedFrom;
  const note = (text) => (from === null ? text
    : () => `${text()} ${T().photoReduced(mb(from), mb(upload.blob.size), mb(photoLimit()))}`);
  setStatus(note(() => T().reading));
  let r;
  let body;
  let asked; // the situation the photo is scored with: a change made while it is read means a rescore
  for (let attempt = 0; ; attempt++) {
    const form = new FormData();
    form.append("photo", upload.blob, upload.name);
    asked = JSON.stringify({ rules: state.rules, ...contextFields() });
    form.append("context", asked);
    if ($("#keep").checked) form.append("keep", "true");
    try {
      r = await fetch("/v1/photos/score", { method: "POST", body: form });
      body = await readBody(r);
    } catch (e) {
      if (seq === photoSeq) photoFailed(note(() => T().networkError), true);
      return;
    }
    if (seq !== photoSeq) return;
    const wait = r.status === 503 ? retryAfter(r) : null;
    if (wait === null || attempt >= PHOTO_RETRIES) break;
    setStatus(note(() => T().busyRetry(wait)));
    await sleep(wait * 1000);
    if (seq !== photoSeq) return;
    setStatus(note(() => T().reading));
  }
  if (!r.ok || !body?.reading) {
    const st = r.status;
    // (a 503 without Retry-After is a server without models: asking again does not help)
    const retryable = !body || st === 408 || st === 429 || (st >= 500 && (st !== 503 || retryAfter(r) !== null));
    photoFailed(note(() => describeFailure(st, body, "photo")), retryable);
    return;
  }
  state.reading = body.reading;
  state.image = body.image;
  const tiles = body.reading.tiles || [];
  const reading = body.reading;
  // The hand tiles the reader doubts, by box (reading.uncertain; a server without it: the hand's
  // boxes under 0.6). Never a box outside the hand, never by face: one doubtful 4z is one tile.
  const doubted = Array.isArray(reading.uncertain) ? reading.uncertain
    : tiles.map((t, i) => ((t.confidence ?? 1) < 0.6 ? i : -1)).filter((i) => i >= 0);
  const readHand = body.hand || reading.hand;
  const partial = reading.partial;
  const { closed, win, melds } = state.hand;
  // Nothing at all found (not the hand, a blurred shot): the hand already there is kept.
  const keptHand = !tiles.length && !readHand && !partial?.concealed && (closed.length || win || melds.length);
  const readCandidates = reading.win_tile_candidates || [];
  if (keptHand) {
    // (the hand and its winning-tile choices stay as the user has them; its tiles are tied to no box
    // of this photo)
    state.uncertain = new Set();
    const h = state.hand;
    h.closedBox = h.closed.map(() => null);
    h.winBox = null;
    h.melds.forEach((m) => { m.boxes = m.tiles.map(() => null); });
  } else if (readHand) {
    state.hand = handFromContract(readHand);
    attachBoxes(state.hand, reading);
    state.candidates = reading.win_tile_source === "assumed" && readCandidates.length >= 2 ? readCandidates : [];
    state.candidatesAreWaits = false;
  } else if (partial && partial.concealed) {
    // 13 tiles (and melds) that wait on a tile: the user picks the winning one.
    state.hand = handFromContract({ ...partial, win_tile: null });
    attachBoxes(state.hand, reading);
    state.candidates = partial.waits || readCandidates;
    state.candidatesAreWaits = true;
  } else {
    state.candidates = readCandidates;
    state.candidatesAreWaits = false;
    // No legal hand: offer every face-up tile read in the hand, so the user can fix it.
    const faces = tiles.map((t, i) => i)
      .filter((i) => tiles[i].in_hand !== false && tiles[i].label && tiles[i].label !== "back");
    state.hand = { ...emptyHand(), closed: faces.map((i) => tiles[i].label), closedBox: faces };
    sortClosed(state.hand);
  }
  if (!keptHand) {
    const onHand = (i) => handTileOfBox(i) !== null;
    state.uncertain = new Set(doubted.filter((i) => tiles[i]?.in_hand !== false && onHand(i)));
  }
  const nuki = (readHand || partial || {}).nukidora;
  if (typeof nuki === "number") { state.ctx.nukidora = nuki; renderContext(); }
  const ms = Math.round(body.timings_ms?.total ?? 0);
  const nUncertain = state.uncertain.size;
  const nCandidates = state.candidates.length;
  const changes = (reading.changes || []).map((c) => `${c.read} → ${c.now}`);
  const warnings = Array.isArray(reading.warnings) ? reading.warnings : [];
  setStatus(note(() => {
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
    // asked to keep the photo and the server could not (its disk): said, not passed over (server's words)
    if (body.keep_error) msg += " " + t.notKept(body.keep_error);
    return msg;
  }), warnings.length > 0 || (!readHand && !partial?.waits?.length));
  drawBoxes();
  renderHand();
  if (keptHand) return;
  // The photo's score is for the situation it was sent with: a change made while it was read (Tsumo
  // tapped, a wind, a dora, the rules) is scored again, with the hand just read.
  state.scoring?.abort(); // (a score in flight is for the hand as it was before the photo)
  state.scoring = null;
  const unchanged = asked === JSON.stringify({ rules: state.rules, ...contextFields() });
  if (body.result && !body.result.error && unchanged) {
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
    const off = handTileOfBox(i) === null; // a wall, a discard, an indicator: not a tile of the hand
    if (off) r.classList.add("off");
    const title = document.createElementNS(NS, "title");
    title.textContent = `${tileName(t.label || "back", state.lang)} ${Math.round(conf * 100)}%`
      + (off ? ` — ${T().boxNotInHand}` : "");
    r.append(title);
    r.addEventListener("click", () => selectFromBox(i));
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

/** Outline on the photo the box the tile being changed was read from (null clears). */
function highlightBoxes(box) {
  document.querySelectorAll("#photo-boxes rect").forEach((r) => {
    r.classList.toggle("hi", Number(r.dataset.index) === box);
  });
}

/** A tap on box `i` of the photo: the hand tile read from it (its own, not one of the same face),
 * or a word that the tile is not part of the hand. */
function selectFromBox(i) {
  const target = handTileOfBox(i);
  setBoxNote(target ? null : "boxNotInHand");
  if (target) openPicker(target);
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
  setBoxNote(null);
  if (target.kind === "closed" || target.kind === "win") {
    current = target.kind === "win" ? state.hand.win : state.hand.closed[target.index];
    $("#picker-title").textContent = t.pickReplace(tileName(current, state.lang));
    if (target.kind === "closed") actions.append(action(t.setWin, "set-win", () => setWin(target.index)));
    actions.append(action(t.remove, "remove", () => removeTile(target)));
  } else if (target.kind === "meld") {
    current = state.hand.melds[target.meld].tiles[target.index];
    $("#picker-title").textContent = t.pickReplace(tileName(current, state.lang));
    actions.append(action(t.removeMeld, "remove-meld", () => {
      state.hand.melds.splice(target.meld, 1);
      handEdited();
      changed();
    }));
  } else if (target.kind === "new-meld") {
    $("#picker-title").textContent = t.pickMeld;
    picking.meldKind = picking.meldKind || "pon";
    picking.from = picking.from || "across";
    syncMeldOptions();
  } else {
    $("#picker-title").textContent = target.kind === "indicator" ? t.pickIndicator : t.pickAdd;
  }
  highlightBoxes(boxOfTarget(target));
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
  // No call comes from the empty seat of a 3-player game: its button goes, and a choice of it moves on.
  if (!seatTaken(picking.from)) picking.from = ["across", "left", "right"].find(seatTaken);
  $("#meld-from").querySelectorAll("button").forEach((b) => { b.hidden = !seatTaken(b.dataset.value); });
  for (const [sel, key] of [["#meld-kind", "meldKind"], ["#meld-from", "from"]]) {
    $(sel).querySelectorAll("button").forEach((b) => b.setAttribute("aria-pressed", String(b.dataset.value === picking[key])));
  }
  $("#meld-from").hidden = picking.meldKind === "ankan" || picking.meldKind === "chi";
}

/** The tiles the candidates were read for have changed: the waits of the 13 tiles a photo read (or
 * the winning tiles the reader hesitated between) may no longer be so, and the page does not compute
 * waits: the row goes. Choosing the winning tile among the waits, or changing it, leaves the 13 alone. */
function handEdited({ winOnly = false } = {}) {
  if (winOnly && state.candidatesAreWaits) return;
  state.candidates = [];
}

function pick(code) {
  const h = state.hand;
  const p = picking;
  if (!p) return;
  const was = p.kind === "closed" ? h.closed[p.index] : p.kind === "win" ? h.win
    : p.kind === "meld" ? h.melds[p.meld]?.tiles[p.index] : null;
  if (p.kind === "new-meld" || (p.kind === "add" && h.win) || (["closed", "meld", "win"].includes(p.kind) && was !== code)) {
    handEdited({ winOnly: p.kind === "win" });
  }
  // (a tile the user has set is checked: no longer dashed; it keeps the box it was read from)
  state.uncertain.delete(boxOfTarget(p));
  if (p.kind === "closed") { h.closed[p.index] = code; sortClosed(h); }
  else if (p.kind === "win") h.win = code;
  else if (p.kind === "add") {
    if (!h.win) { h.win = code; h.winBox = null; } else { h.closed.push(code); h.closedBox.push(null); sortClosed(h); }
  }
  else if (p.kind === "indicator") { state.ctx[p.key].push(code); renderIndicators(); }
  else if (p.kind === "meld") {
    const m = h.melds[p.meld];
    const old = m.tiles[p.index];
    if (m.kind === "chi" || sameTile(old, code)) m.tiles[p.index] = code; // one tile (or red ↔ plain five)
    else m.tiles = m.tiles.map(() => code);
    if (m.called === old || !m.tiles.includes(m.called)) m.called = m.kind === "ankan" ? null : m.tiles[m.kind === "chi" ? p.index : 0];
  } else if (p.kind === "new-meld") {
    const m = newMeld(p.meldKind, p.from, code);
    h.melds.push({ ...m, boxes: m.tiles.map(() => null) });
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

/** ★ on closed tile `index`: it becomes the winning tile (the old one joins the hand). In a hand one
 * tile short (13 read: the winning tile is not in the photo) the winning tile is another tile of
 * that face, added as the 14th (replacing a winning tile chosen before among the waits). */
function setWin(index) {
  const h = state.hand;
  const chosen = h.closed[index];
  if (addsWin(h)) {
    h.win = chosen;
    h.winBox = null;
    changed();
    return;
  }
  const box = h.closedBox[index] ?? null;
  h.closed.splice(index, 1);
  h.closedBox.splice(index, 1);
  if (h.win) { h.closed.push(h.win); h.closedBox.push(h.winBox); }
  sortClosed(h);
  h.win = chosen;
  h.winBox = box;
  changed();
}

function removeTile(target) {
  const h = state.hand;
  handEdited({ winOnly: target.kind === "win" });
  if (target.kind === "win") { h.win = null; h.winBox = null; }
  else { h.closed.splice(target.index, 1); h.closedBox.splice(target.index, 1); }
  changed();
}

function changed() {
  renderHand();
  drawBoxes(); // (which outlines are tiles of the hand may have changed)
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
    state.hand = emptyHand();
    state.uncertain.clear();
    state.candidates = [];
    state.candidatesAreWaits = false;
    changed();
  });
  $("#type-hand").addEventListener("click", () => {
    const f = $("#text-form");
    f.hidden = !f.hidden;
    setTextError(null);
    const { closed, win } = state.hand;
    $("#text-hand").value = formatTiles(win ? [...closed, win] : closed);
    if (!f.hidden) $("#text-hand").focus();
  });
  $("#text-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const tiles = parseTiles($("#text-hand").value.trim());
    // (said next to the input, where the user is looking; the photo's status line is left alone)
    if (!tiles || !tiles.length) {
      setTextError("badText");
      $("#text-hand").focus();
      $("#text-error").scrollIntoView({ block: "nearest" }); // (on a phone it may lie under the fold)
      return;
    }
    setTextError(null);
    const win = tiles.pop();
    const melds = state.hand.melds.map((m) => ({ ...m, boxes: m.tiles.map(() => null) }));
    state.hand = { closed: tiles, win, melds, closedBox: tiles.map(() => null), winBox: null };
    sortClosed(state.hand);
    state.uncertain.clear();
    state.candidates = [];
    state.candidatesAreWaits = false;
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
    const flag = el.dataset.flag;
    state.ctx[flag] = el.checked;
    // Ippatsu and double riichi are riichi: they come with it and go with it (ura dora too).
    if (flag === "riichi" && !el.checked) {
      state.ctx.ippatsu = false;
      state.ctx.double_riichi = false;
      state.ctx.ura_indicators = [];
    }
    if ((flag === "ippatsu" || flag === "double_riichi") && el.checked) state.ctx.riichi = true;
    renderContext();
    rescore();
  }));
  document.querySelectorAll("[data-counter]").forEach((el) => {
    const read = () => {
      const n = Math.max(0, Math.min(Number(el.max || 99), Math.floor(Number(el.value) || 0)));
      const was = state.ctx[el.dataset.counter];
      state.ctx[el.dataset.counter] = n;
      return n !== was;
    };
    el.addEventListener("input", () => { read(); rescore(); });
    // Once typed, the field shows the number used (-3 → 0, 150 → 99, 2.7 → 2, 1e1 → 10, empty → 0).
    const settle = () => {
      if (read()) rescore();
      if (el.value !== String(state.ctx[el.dataset.counter])) el.value = state.ctx[el.dataset.counter];
    };
    el.addEventListener("change", settle);
    el.addEventListener("blur", settle);
  });
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
