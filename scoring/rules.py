"""Rule sets: one frozen dataclass, one field per difference that changes a score.

Every preset is `dataclasses.replace(BASE, ...)` with only its differences, so reading a preset
tells you exactly how it differs. Users build house rules with
`resolve_rules({"preset": "tenhou", "kiriage": True})`. Each field carries `metadata["doc"]`
(shown by `tsumo rules NAME`). Sources: `../shared/RULESETS.md` and the seed documents it cites;
`mahjong-soul`, `m-league` and `tenhou-sanma` are from the operators' published rules (see
docs/scoring.md for the choices made where sources are thin).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from .errors import HandError

PAO_YAKUMAN = ("daisangen", "daisuushii", "shousuushii", "tsuuiisou", "chinroutou", "ryuuiisou", "suukantsu")


def _f(default: Any, doc: str, choices: tuple | None = None) -> Any:
    meta: dict[str, Any] = {"doc": doc}
    if choices is not None:
        meta["choices"] = choices
    return field(default=default, metadata=meta)


@dataclass(frozen=True)
class Rules:
    """How a table scores a winning hand. Defaults are the Tenhou (online) conventions."""

    name: str = _f("custom", "Preset this rule set came from ('<preset>+custom' after overrides, unless they name it).")
    players: int = _f(4, "Players at the table: 4, or 3 (sanma: 108 tiles, manzu 2-8 removed, no chi).", (3, 4))
    red_fives: tuple[int, int, int] = _f(
        (1, 1, 1), "Red fives in the set for man, pin, sou (each is one dora). (0, 0, 0) = none.")
    open_tanyao: bool = _f(True, "All-simples counts with an open hand (kuitan).")
    ura_dora: bool = _f(True, "Ura dora are turned over for a riichi winner.")
    kan_dora: bool = _f(True, "Each kan turns over another dora indicator (with ura dora under it).")
    ippatsu: bool = _f(True, "Ippatsu (win within one go-around after riichi) is a 1-han yaku.")
    double_wind_pair_fu: int = _f(4, "Fu for a pair of the wind that is both seat and round wind (2 or 4).", (2, 4))
    rinshan_tsumo_fu: bool = _f(True, "A win on the kan replacement tile still gets the 2 tsumo fu.")
    open_pinfu_fu: bool = _f(True, "An open hand with no fu won by ron is counted as 30 fu (not 20).")
    kiriage: bool = _f(False, "Kiriage mangan: 4 han 30 fu and 3 han 60 fu are paid as mangan.")
    mangan_han: int = _f(5, "Han from which a hand is at least mangan (lower han reach mangan when the base passes 2000).")
    haneman_han: int = _f(6, "Han from which a hand is haneman.")
    baiman_han: int = _f(8, "Han from which a hand is baiman.")
    sanbaiman_han: int = _f(11, "Han from which a hand is sanbaiman.")
    kazoe_han: int | None = _f(13, "Han from which a hand without yakuman is paid as one yakuman (kazoe); null = no kazoe (sanbaiman is the top).")
    yakuman_stacking: bool = _f(True, "Several yakuman in one hand add up (false: the hand is one yakuman).")
    double_yakuman: bool = _f(False, "13-wait kokushi, suuankou tanki, junsei chuuren and daisuushii count as double yakuman.")
    renhou: str = _f("none", "Renhou (ron before one's first draw): 'none' (not a yaku), 'mangan' (at least mangan, "
                             "the hand's own value if higher), or 'yakuman'.", ("none", "mangan", "yakuman"))
    haitei_with_rinshan: bool = _f(False, "Haitei counts together with rinshan when the last tile is a replacement tile "
                                          "(false: rinshan only).")
    kokushi_chankan_ankan: bool = _f(False, "Thirteen orphans may rob a closed kan.")
    honba_points: int = _f(300, "Points per honba counter, in total (ron: the discarder pays it; tsumo: split between payers).")
    riichi_stick_points: int = _f(1000, "Points per riichi stick (kyotaku) on the table, collected by the winner.")
    pao: tuple[str, ...] = _f(("daisangen", "daisuushii"),
                              "Yakuman with liability (pao) for the player who fed the deciding call: any of "
                              + ", ".join(PAO_YAKUMAN) + ".")
    pao_ron: str = _f("split", "On ron with a liable player: 'split' (discarder and liable pay half each) or "
                               "'liable' (the liable player pays it all).", ("split", "liable"))
    pao_honba: str = _f("liable", "Who pays the honba of a pao hand: 'liable' or 'discarder' (on tsumo the liable "
                                  "player pays them in both cases).", ("liable", "discarder"))
    sanma_tsumo: str = _f("loss", "3-player tsumo: 'loss' (the absent north seat's share is not paid) or 'split' "
                                  "(its share is split between the two payers).", ("loss", "split"))
    nukidora: bool = _f(False, "North tiles set aside (3-player) each count as one dora.")

    # ---- derived, cached per Rules object (not fields) ----
    @cached_property
    def three_player(self) -> bool:
        return self.players == 3

    @cached_property
    def renhou_is_yakuman(self) -> bool:
        return self.renhou == "yakuman"

    def to_json(self) -> dict:
        out = {}
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            out[f.name] = list(v) if isinstance(v, tuple) else v
        return out

    @staticmethod
    def docs() -> dict[str, str]:
        return {f.name: f.metadata.get("doc", "") for f in dataclasses.fields(Rules)}


BASE = Rules()

# Each preset lists only its differences from BASE (Tenhou's online rules).
PRESETS: dict[str, Rules] = {
    # 003 (beginner's guide following Tenhou): red fives, ura/kan dora, ippatsu, double-wind pair 4 fu,
    # kazoe at 13, yakuman add up, no double yakuman, pao for daisangen/daisuushii split on ron.
    "tenhou": dataclasses.replace(BASE, name="tenhou"),
    # 000 平成版 麻雀新報知ルール: 第16条 one indicator, no ura; 第51条 has no ippatsu; 第56条 value pair 2 fu;
    # 第59条 5-7 翻 mangan, 8-9 haneman, 10-12 baiman, 13+ sanbaiman, where 第57条② counts the 翻 as yaku + dora
    # + 2 (ba-zoro): 3-5 han mangan (3-4 han only past 8000 points), 6-7 haneman, 8-10 baiman, 11+ sanbaiman,
    # no kazoe (the only reading under which every hand past 8000 points has a row); 第54条 yakuman don't stack;
    # 第67条 pao daisangen/daisuushii, ron split with the discarder; no honba payments are described.
    "shinhouchi": dataclasses.replace(
        BASE, name="shinhouchi", red_fives=(0, 0, 0), ura_dora=False, kan_dora=False, ippatsu=False,
        double_wind_pair_fu=2, kazoe_han=None, yakuman_stacking=False, honba_points=0),
    # 001 公式戦ルール: 第六条④ no ura/kan dora; 第十二条 no ippatsu in the yaku list, renhou = mangan;
    # 第十一条 mangan 40fu 6han / haneman 8 / baiman 10 / sanbaiman 12 counting 2 ba-zoro han
    # (= 4·40 or 5, 6, 8, 10 without them); no kazoe; 第五条 100 per player per honba;
    # 第七条 pao for daisangen, suushiihou, tsuuiisou, chinroutou, ryuuiisou; 第一条⑫ kokushi may rob an ankan.
    "renmei": dataclasses.replace(
        BASE, name="renmei", red_fives=(0, 0, 0), ura_dora=False, kan_dora=False, ippatsu=False,
        double_wind_pair_fu=2, haneman_han=6, baiman_han=8, sanbaiman_han=10, kazoe_han=None,
        yakuman_stacking=False, renhou="mangan", kokushi_chankan_ankan=True,
        pao=("daisangen", "daisuushii", "shousuushii", "tsuuiisou", "chinroutou", "ryuuiisou")),
    # 002 三人麻雀対局ルール: 1.1.1(9) 1m->9m, (10) no chi, (11) nuki-dora, (15) red 5p/5s, (4) 200 per honba;
    # 1.1.2(3) 2 fu double-wind pair, (4) kiriage, (5) kazoe 13, double yakuman, stacking,
    # (6) pao daisangen/daisuushii/suukantsu split on ron, liable pays honba; (7) kokushi robs an ankan.
    "sanma": dataclasses.replace(
        BASE, name="sanma", players=3, red_fives=(0, 1, 1), double_wind_pair_fu=2, kiriage=True,
        double_yakuman=True, kokushi_chankan_ankan=True, honba_points=200,
        pao=("daisangen", "daisuushii", "suukantsu"), nukidora=True),
    # 004 麻雀最強戦2022: no red fives; ura/kan dora and ippatsu; 連風牌トイツ 2 fu; 7700->8000 kiriage;
    # mangan 5 / haneman 6 / baiman 8 / sanbaiman 11, no kazoe; pure yakuman combinations stack, no double
    # yakuman hands; 嶺上開花と海底 do not stack; no kokushi on an ankan; pao incl. suukantsu.
    "saikyosen-2022": dataclasses.replace(
        BASE, name="saikyosen-2022", red_fives=(0, 0, 0), double_wind_pair_fu=2, kiriage=True, kazoe_han=None,
        pao=("daisangen", "daisuushii", "suukantsu")),
    # Mahjong Soul (雀魂) ranked rules: three red fives, kiriage mangan, kazoe yakuman, double yakuman for
    # the four special hands, double-wind pair 4 fu, kokushi may rob a closed kan, pao incl. suukantsu.
    "mahjong-soul": dataclasses.replace(
        BASE, name="mahjong-soul", kiriage=True, double_yakuman=True, kokushi_chankan_ankan=True,
        pao=("daisangen", "daisuushii", "suukantsu")),
    # M-League official rules: one red five per suit, ippatsu/ura/kan dora, 7700 rounded up to mangan,
    # no kazoe (13+ han is sanbaiman), pure yakuman combinations stack, no double yakuman hands,
    # double-wind pair 2 fu, no chankan on a closed kan (kokushi included).
    "m-league": dataclasses.replace(
        BASE, name="m-league", double_wind_pair_fu=2, kiriage=True, kazoe_han=None),
    # Tenhou 3-player: nuki-dora, red 5p/5s, tsumo loss, no kiriage, single yakuman, kazoe at 13.
    "tenhou-sanma": dataclasses.replace(
        BASE, name="tenhou-sanma", players=3, red_fives=(0, 1, 1), honba_points=200, nukidora=True),
}

SUMMARIES: dict[str, str] = {
    "tenhou": "Tenhou online rules: red fives, ura/kan dora, ippatsu, kazoe yakuman, double-wind pair 4 fu",
    "shinhouchi": "平成版 麻雀新報知ルール: no red/ura/kan dora, no ippatsu, 11+ han sanbaiman (no kazoe), one yakuman max",
    "renmei": "日本麻雀連盟 公式戦ルール: no red/ura/kan dora, no ippatsu, renhou mangan, haneman from 6 han, wide pao",
    "sanma": "三人麻雀: 3 players, nuki-dora, red 5p/5s, no chi, kiriage, double yakuman, tsumo loss",
    "saikyosen-2022": "麻雀最強戦2022: no red fives, kiriage, no kazoe, pao incl. suukantsu",
    "mahjong-soul": "Mahjong Soul ranked: red fives, kiriage, kazoe and double yakuman, kokushi robs closed kans",
    "m-league": "M-League: red fives, kiriage, no kazoe, no double yakuman, double-wind pair 2 fu",
    "tenhou-sanma": "Tenhou 3-player: nuki-dora, red 5p/5s, tsumo loss, no kiriage, single yakuman",
}

_FIELDS = {f.name: f for f in dataclasses.fields(Rules)}


def _coerce(name: str, value: Any) -> Any:
    """Check and convert one override value; HandError naming rules.<name> if it does not fit."""
    where = f"rules.{name}"
    f = _FIELDS[name]
    default = f.default
    choices = f.metadata.get("choices")
    if name == "name":
        if not isinstance(value, str):
            raise HandError("expected a string", where)
        return value
    if name == "red_fives":
        if isinstance(value, bool):
            value = (1, 1, 1) if value else (0, 0, 0)
        elif isinstance(value, int):
            value = (value, value, value)
        elif isinstance(value, dict):
            unknown = set(value) - {"m", "p", "s"}
            if unknown:
                raise HandError(f"keys must be m, p, s; got {sorted(unknown)}", where)
            value = (value.get("m", 0), value.get("p", 0), value.get("s", 0))
        if not (isinstance(value, (list, tuple)) and len(value) == 3
                and all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 4 for v in value)):
            raise HandError("expected three counts 0..4 for man, pin, sou (e.g. [1, 1, 1]), a bool or one count", where)
        return tuple(value)
    if name == "pao":
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
            raise HandError("expected a list of yakuman names", where)
        bad = [v for v in value if v not in PAO_YAKUMAN]
        if bad:
            raise HandError(f"unknown yakuman {bad}; choose from {', '.join(PAO_YAKUMAN)}", where)
        return tuple(dict.fromkeys(value))
    if name == "kazoe_han":
        if value is None or value is False:
            return None
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise HandError(f"expected true or false, got {value!r}", where)
        return value
    if isinstance(default, int) or name == "kazoe_han":
        if isinstance(value, bool) or not isinstance(value, int):
            raise HandError(f"expected an integer, got {value!r}", where)
        if choices and value not in choices:
            raise HandError(f"expected one of {list(choices)}, got {value}", where)
        if name.endswith("_han") and not 1 <= value <= 100:
            raise HandError(f"expected a han count 1..100, got {value}", where)
        if name.endswith("_points") and not 0 <= value <= 100000:
            raise HandError(f"expected 0..100000 points, got {value}", where)
        return value
    if isinstance(default, str):
        if not isinstance(value, str) or (choices and value not in choices):
            raise HandError(f"expected one of {list(choices or [])}, got {value!r}", where)
        return value
    raise HandError(f"cannot set {name}", where)  # pragma: no cover - every field is handled above


def _check(rules: Rules) -> Rules:
    """Cross-field consistency of a finished rule set."""
    order = [rules.mangan_han, rules.haneman_han, rules.baiman_han, rules.sanbaiman_han]
    if order != sorted(order) or (rules.kazoe_han is not None and rules.kazoe_han < rules.sanbaiman_han):
        raise HandError("limit han must rise: mangan <= haneman <= baiman <= sanbaiman <= kazoe", "rules")
    if rules.nukidora and rules.players != 3:
        raise HandError("nuki-dora only exists in 3-player games (set players to 3)", "rules.nukidora")
    return rules


def _frozen(value: Any) -> Any:
    """A hashable stand-in for a JSON value that tells types apart (True is not 1), or None."""
    kind = type(value)
    if kind in (str, int, float, bool) or value is None:
        return None if kind is str and len(value) > 64 else (kind, value)
    if kind not in (list, tuple, dict) or len(value) > 32:  # only small specs are kept: a real one is a
        return None                                          # few fields, short names and short lists
    if kind in (list, tuple):
        items = tuple(_frozen(v) for v in value)
        return None if None in items else (kind, items)
    if kind is dict:
        items = tuple((_frozen(k), _frozen(v)) for k, v in value.items())
        return None if any(k is None or v is None for k, v in items) else (kind, items)
    return None


# resolved {"preset": ..., **overrides} objects: the same spec gives the same Rules object, so the
# engine's per-rule-set tables are built once (API callers send their house rules with every hand)
_RESOLVED: dict[Any, Rules] = {}


def resolve_rules(spec: "str | dict | Rules | None") -> Rules:
    """A preset name, `{"preset": name, **overrides}`, a Rules object, or None (= tenhou)."""
    if spec is None:
        return PRESETS["tenhou"]
    if type(spec) is str:
        hit = PRESETS.get(spec)
        if hit is not None:
            return hit
    if isinstance(spec, Rules):
        return spec
    if type(spec) is dict:
        key = _frozen(spec)
        hit = _RESOLVED.get(key) if key is not None else None
        if hit is None:
            hit = _resolve(spec)
            if key is not None:
                if len(_RESOLVED) > 256:  # bounded: any input may add specs
                    _RESOLVED.clear()
                _RESOLVED[key] = hit
        return hit
    return _resolve(spec)


def _resolve(spec: "str | dict | Rules | None") -> Rules:
    if spec is None:
        return PRESETS["tenhou"]
    if isinstance(spec, Rules):
        return spec
    if isinstance(spec, str):
        key = spec.strip().lower()
        if key not in PRESETS:
            raise HandError(f"unknown rule set {spec!r}; presets: {', '.join(PRESETS)}", "rules")
        return PRESETS[key]
    if isinstance(spec, dict):
        preset = spec.get("preset", "tenhou")
        base = resolve_rules(preset if isinstance(preset, str) else _bad_preset(preset))
        overrides: dict[str, Any] = {}
        for key, value in spec.items():
            if key == "preset":
                continue
            if not isinstance(key, str) or key not in _FIELDS:
                raise HandError(f"unknown rule field {key!r}; fields: {', '.join(_FIELDS)}", "rules")
            overrides[key] = _coerce(key, value)
        if not overrides:
            return base
        overrides.setdefault("name", "custom" if "name" not in spec else overrides["name"])
        if overrides["name"] == "custom":
            overrides["name"] = f"{base.name}+custom"
        if overrides.get("players") == 3 and base.players == 4 and "nukidora" not in overrides:
            overrides.setdefault("nukidora", True)
        rules = _check(dataclasses.replace(base, **overrides))
        if rules.name in PRESETS and rules != PRESETS[rules.name]:  # results would say "renmei" for other rules
            raise HandError(f"{rules.name!r} is another rule set's name; to play it give it as \"preset\", or "
                            "name these rules something of your own", "rules.name")
        return rules
    raise HandError(f"expected a preset name or an object, got {type(spec).__name__}", "rules")


def _bad_preset(value: Any) -> str:
    raise HandError(f"expected a preset name, got {value!r}", "rules.preset")
