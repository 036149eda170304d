// English and Japanese labels for the phone page. Keys are used by data-i18n attributes and app.js.
export const STRINGS = {
  en: {
    takePhoto: "Take or choose a photo",
    photoHint: "Lay the winning hand flat, melds to the right, the winning tile set apart.",
    keepPhoto: "Let the server keep this photo (to improve reading)",
    reading: "Reading the photo…",
    readDone: (n, ms) => `${n} tiles read in ${ms} ms.`,
    noHand: "No complete hand could be read. Fix the tiles below, or type the hand.",
    uncertain: (n) => `${n} tile(s) uncertain (dashed): check them.`,
    unsureReading: "The reader had to guess to make this a hand: check it against the photo.",
    networkError: "Could not reach the server.",
    hand: "Hand",
    handHint: "Tap a tile to change it or mark it as the winning tile.",
    emptyHand: "No tiles yet: take a photo or type a hand.",
    addTile: "+ tile", addMeld: "+ meld", typeHand: "Type a hand", clear: "Clear", use: "Use",
    badText: "Use MPSZ notation, e.g. 234m0556p789s1122z (the last tile is the winning tile).",
    situation: "Situation", rules: "Rules", win: "Win", ron: "Ron", tsumo: "Tsumo",
    discarder: "Dealt in by", left: "Left", across: "Across", right: "Right",
    roundWind: "Round wind", seatWind: "Seat wind", E: "East", S: "South", W: "West", N: "North",
    dora: "Dora indicators", ura: "Ura dora indicators",
    riichi: "Riichi", ippatsu: "Ippatsu", double_riichi: "Double riichi",
    more: "More situations and counters",
    rinshan: "After a kan (rinshan)", chankan: "Robbing a kan (chankan)", haitei: "Last tile drawn (haitei)",
    houtei: "Last discard (houtei)", tenhou: "Dealer's first draw (tenhou)", chiihou: "First draw (chiihou)",
    renhou: "Before first draw (renhou)",
    honba: "Honba", kyotaku: "Riichi sticks", nukidora: "North set aside",
    tileArt: "Tile art: FluffyStuff (CC0)",
    close: "Close", remove: "Remove", setWin: "★ Winning tile", removeMeld: "Remove meld",
    chi: "Chi", pon: "Pon", minkan: "Open kan", ankan: "Closed kan", kakan: "Added kan",
    pickTile: "Choose the tile", pickReplace: (t) => `Change ${t} to…`, pickAdd: "Add a tile",
    pickIndicator: "Add an indicator", pickMeld: "Meld: kind, from whom, then its (lowest) tile",
    cannotScore: "Cannot score this hand",
    han: "han", fu: "fu", yakuman: "yakuman", yaku: "Yaku", payments: "Who pays",
    total: "Winner collects", pays: "pays",
    payer: { left: "Left (kamicha)", across: "Across (toimen)", right: "Right (shimocha)", discarder: "Discarder",
             dealer: "Dealer", others: "Others" },
    limits: { mangan: "Mangan", haneman: "Haneman", baiman: "Baiman", sanbaiman: "Sanbaiman", yakuman: "Yakuman",
              "kazoe yakuman": "Kazoe yakuman", "double yakuman": "Double yakuman", "triple yakuman": "Triple yakuman" },
    dealerMark: "dealer",
    scoring: "Scoring…",
    winCandidates: "Winning tile?",
    pickWin: "Which tile completed the hand? Tap it below, or tap a tile and choose ★.",
    changed: (list) => `Checked against the rules: ${list}.`,
  },
  ja: {
    takePhoto: "写真を撮る・選ぶ",
    photoHint: "和了形を平らに並べ、副露は右、和了牌は少し離して置いてください。",
    keepPhoto: "この写真をサーバーに保存する（認識の改善用）",
    reading: "写真を読み取り中…",
    readDone: (n, ms) => `${n}枚の牌を${ms}ミリ秒で読み取りました。`,
    noHand: "和了形を読み取れませんでした。下の牌を直すか、手牌を入力してください。",
    uncertain: (n) => `不確かな牌が${n}枚あります（点線）。確認してください。`,
    unsureReading: "推測を含む読み取りです。写真と見比べて確認してください。",
    networkError: "サーバーに接続できません。",
    hand: "手牌",
    handHint: "牌をタップして変更、または和了牌に指定します。",
    emptyHand: "牌がありません。写真を撮るか手牌を入力してください。",
    addTile: "＋牌", addMeld: "＋副露", typeHand: "手牌を入力", clear: "クリア", use: "決定",
    badText: "MPSZ表記で入力してください（例: 234m0556p789s1122z、最後の牌が和了牌）。",
    situation: "状況", rules: "ルール", win: "和了", ron: "ロン", tsumo: "ツモ",
    discarder: "放銃者", left: "上家", across: "対面", right: "下家",
    roundWind: "場風", seatWind: "自風", E: "東", S: "南", W: "西", N: "北",
    dora: "ドラ表示牌", ura: "裏ドラ表示牌",
    riichi: "立直", ippatsu: "一発", double_riichi: "ダブル立直",
    more: "その他の状況・本場・供託",
    rinshan: "嶺上開花", chankan: "槍槓", haitei: "海底摸月", houtei: "河底撈魚",
    tenhou: "天和", chiihou: "地和", renhou: "人和",
    honba: "本場", kyotaku: "供託リーチ棒", nukidora: "抜きドラ（北）",
    tileArt: "牌画像: FluffyStuff (CC0)",
    close: "閉じる", remove: "削除", setWin: "★ 和了牌にする", removeMeld: "副露を削除",
    chi: "チー", pon: "ポン", minkan: "明槓", ankan: "暗槓", kakan: "加槓",
    pickTile: "牌を選択", pickReplace: (t) => `${t}を変更…`, pickAdd: "牌を追加",
    pickIndicator: "表示牌を追加", pickMeld: "副露: 種類、誰から、最初の牌",
    cannotScore: "この手は計算できません",
    han: "翻", fu: "符", yakuman: "役満", yaku: "役", payments: "支払い",
    total: "収入合計", pays: "支払い",
    payer: { left: "上家", across: "対面", right: "下家", discarder: "放銃者", dealer: "親", others: "子" },
    limits: { mangan: "満貫", haneman: "跳満", baiman: "倍満", sanbaiman: "三倍満", yakuman: "役満",
              "kazoe yakuman": "数え役満", "double yakuman": "ダブル役満", "triple yakuman": "トリプル役満" },
    dealerMark: "親",
    scoring: "計算中…",
    winCandidates: "和了牌は？",
    pickWin: "和了牌を下から選ぶか、牌をタップして★を選んでください。",
    changed: (list) => `ルールに合わせて修正: ${list}。`,
  },
};

const NUM_JA = ["", "一", "二", "三", "四", "五", "六", "七", "八", "九"];
const HONORS = {
  en: ["East", "South", "West", "North", "White", "Green", "Red"],
  ja: ["東", "南", "西", "北", "白", "發", "中"],
};
const SUIT = { en: { m: "man", p: "pin", s: "sou" }, ja: { m: "萬", p: "筒", s: "索" } };

/** A tile code ("3m", "0p", "7z", "back") as words, for labels and screen readers. */
export function tileName(code, lang) {
  if (code === "back") return lang === "ja" ? "裏" : "face down";
  const n = Number(code[0]);
  const suit = code[1];
  if (suit === "z") return HONORS[lang][n - 1];
  if (lang === "ja") return (n === 0 ? "赤五" : NUM_JA[n]) + SUIT.ja[suit];
  return (n === 0 ? "red 5 " : `${n} `) + SUIT.en[suit];
}
