"""The league's settings: every one with its THPA default, type, bounds and group, and why a value is refused.

Pure rules (no Flask, no database). A league's settings are a flat mapping of keys such as
`nightly.starting_stack` or `league.hands_per_hour` to values; `from_stored` reads them from how the
database keeps them (the League row's columns and its `settings` JSON, per event type), `to_stored`
writes them back, and `event_snapshot` is what a new night keeps of them, so that a change applies to
nights created after it (R-CHIP-1, R-CHIP-2, R-LATE-1, R-ENTRY-1, R-PAY-1, R-PAY-3, R-QUAL-2,
R-CLOCK-4, R-PEN-2, R-PTS-8, R-HFH-2).
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from league.chips import BONUS_KINDS, BONUS_LABELS, DEFAULT_BONUS_VALUES, DEFAULT_STARTING_STACKS
from league.events import EVENT_TYPES
from league.finals import FINALS
from league.hand_for_hand import DEFAULT_MINUTES as HFH_DEFAULT_MINUTES
from league.hand_for_hand import MAX_MINUTES as HFH_MAX_MINUTES
from league.payouts import HOUSE_TABLES, MONEY_MAX, default_money
from league.pools import default_shares
from league.statuses import LeagueKind

LEAGUE = "league"  # the group of the league-wide settings; the other groups are the event types


class Kind(StrEnum):
    """What a setting's value is, and so how the page asks for it and how it is checked."""
    WHOLE = "whole"  # a whole number between the setting's bounds
    WHOLE_OR_NONE = "whole_or_none"  # a whole number, or blank for "the rule's default moment"
    YES_NO = "yes_no"
    CHOICE = "choice"
    ZONE = "zone"  # an IANA time zone
    PAYOUT_TABLE = "payout_table"  # percentages per number of paid places


class ReEntry(StrEnum):
    """R-ENTRY-1: whether a busted player may buy back in (off in THPA games)."""
    OFF = "off"
    REENTRY = "reentry"  # a new stack at a new random seat
    REBUY = "rebuy"  # a new stack at once, same seat


class BonusWindows(StrEnum):
    """R-CHIP-2: when food and drink bonuses are taken."""
    START_AND_MAJOR_BREAK = "start_and_major_break"  # THPA: before the clock first starts, or during the major break
    ANY_TIME = "any_time"


@dataclass(frozen=True)
class Setting:
    """One setting: its key (`group.name`), what the page calls it, its kind and bounds, and its rule id."""
    group: str
    name: str
    label: str
    kind: Kind
    rule: str
    minimum: int = 0
    maximum: int = 0
    choices: tuple[tuple[str, str], ...] = ()
    unit: str = ""
    money: bool = False  # a cash league's only (a free-to-play league's games are free)

    @property
    def key(self) -> str:
        return f"{self.group}.{self.name}"


REENTRY_CHOICES = ((ReEntry.OFF, "Off (THPA)"), (ReEntry.REENTRY, "Re-entry: new stack, new seat"),
                   (ReEntry.REBUY, "Rebuy: new stack, same seat"))
WINDOW_CHOICES = ((BonusWindows.START_AND_MAJOR_BREAK, "Start and major break (THPA)"),
                  (BonusWindows.ANY_TIME, "Any time"))
MAX_STACK = 1_000_000
MAX_BONUS = 100_000
MAX_MINUTES = 600
MAX_REENTRIES = 20
MAX_PAID_PLACES = 50  # the payout table's longest row


def _event_settings(event_type: str) -> list[Setting]:
    g = event_type
    rows = [
        Setting(g, "awards_points", "Awards points", Kind.YES_NO, "R-PTS-8"),
        Setting(g, "starting_stack", "Starting stack", Kind.WHOLE, "R-CHIP-1", 100, MAX_STACK, unit="chips"),
    ]
    rows += [Setting(g, f"bonus_{kind}", f"{BONUS_LABELS[kind]} bonus (0: not taken)", Kind.WHOLE, "R-CHIP-1",
                     0, MAX_BONUS, unit="chips") for kind in BONUS_KINDS]
    rows += [
        Setting(g, "bonus_windows", "Food and drink bonuses", Kind.CHOICE, "R-CHIP-2", choices=WINDOW_CHOICES),
        Setting(g, "registration_close_minutes", "Registration closes after (blank: at the major break)",
                Kind.WHOLE_OR_NONE, "R-LATE-1", 1, MAX_MINUTES, unit="minutes of play"),
        Setting(g, "reentry", "Re-entries", Kind.CHOICE, "R-ENTRY-1", choices=REENTRY_CHOICES),
        Setting(g, "reentry_limit", "Re-entries per player", Kind.WHOLE, "R-ENTRY-1", 1, MAX_REENTRIES),
        Setting(g, "reentry_until_minutes", "Re-entries until (blank: when registration closes)",
                Kind.WHOLE_OR_NONE, "R-ENTRY-1", 1, MAX_MINUTES, unit="minutes of play"),
        Setting(g, "hand_for_hand_minutes", "Hand-for-hand: time each hand takes off the level", Kind.WHOLE,
                "R-HFH-2", 1, HFH_MAX_MINUTES, unit="minutes"),
        Setting(g, "buy_in", "Buy-in", Kind.WHOLE, "R-PAY-3", 0, MONEY_MAX, unit="$", money=True),
        Setting(g, "guarantee", "Guarantee", Kind.WHOLE, "R-PAY-1", 0, MONEY_MAX, unit="$", money=True),
        Setting(g, "pool_share", "To the night's prize pool, per buy-in", Kind.WHOLE, "R-PAY-3", 0, MONEY_MAX,
                unit="$", money=True),
        Setting(g, "final_share", "To the Monthly Final pool, per buy-in", Kind.WHOLE, "R-PAY-3", 0, MONEY_MAX,
                unit="$", money=True),
        Setting(g, "top50_share", "To the Top-50 pool, per buy-in", Kind.WHOLE, "R-PAY-3", 0, MONEY_MAX,
                unit="$", money=True),
    ]
    return rows


LEAGUE_SETTINGS: tuple[Setting, ...] = (
    Setting(LEAGUE, "pass_down", "Ticket pass-down", Kind.YES_NO, "R-QUAL-2"),
    Setting(LEAGUE, "payout_percent", "Paid places", Kind.WHOLE, "R-PAY-1", 1, 50, unit="% of the field"),
    Setting(LEAGUE, "payout_table", "Payout table (% per place, one line per number of paid places; "
            "more places than listed: the house curve)", Kind.PAYOUT_TABLE, "R-PAY-1"),
    Setting(LEAGUE, "shot_clock_seconds", "Called clock", Kind.WHOLE, "R-CLOCK-4", 10, 300, unit="seconds"),
    Setting(LEAGUE, "hands_per_hour", "Hands per hour (penalty return times)", Kind.WHOLE, "R-PEN-2", 5, 120),
    Setting(LEAGUE, "timezone", "Time zone", Kind.ZONE, "R-STD-1"),
)

SETTINGS: tuple[Setting, ...] = LEAGUE_SETTINGS + tuple(s for t in EVENT_TYPES for s in _event_settings(t))
BY_KEY: dict[str, Setting] = {s.key: s for s in SETTINGS}
GROUPS: tuple[str, ...] = (LEAGUE, *EVENT_TYPES)
GROUP_LABELS: dict[str, str] = {LEAGUE: "League", **{name: kind.label for name, kind in EVENT_TYPES.items()}}

# The house payout table, as the setting writes it: league.payouts' own.
HOUSE_PAYOUT_TABLE = HOUSE_TABLES


def settings_of(group: str, league_kind: str = LeagueKind.CASH) -> list[Setting]:
    """The settings of one group the league shows (a free-to-play league has no money settings)."""
    return [s for s in SETTINGS if s.group == group and (league_kind == LeagueKind.CASH or not s.money)]


def thpa_defaults(league_kind: str) -> dict[str, Any]:
    """Every setting's THPA default for a league of this kind ("free" or "cash"): points from nightly and
    high-roller games only (R-PTS-8); R-CHIP-1's stacks and bonus values, R-FIN's for finals; food and
    drink at the start and the major break (R-CHIP-2); registration to the major break (R-LATE-1);
    no re-entries (R-ENTRY); two minutes off the level for each hand-for-hand hand (R-HFH-2); the
    money of league.payouts.default_money and the Monthly Final and Top-50 shares of
    league.pools.default_shares, the ones the organiser's ledger counts (R-PAY-3); pass-down
    on for free leagues, off for cash (R-QUAL-2); 10 % paid and the house table (R-PAY-1); a 70-second
    called clock (R-CLOCK-4); 30 hands an hour (R-PEN-2); Sydney."""
    values: dict[str, Any] = {
        "league.pass_down": league_kind != LeagueKind.CASH, "league.payout_percent": 10,
        "league.payout_table": dict(HOUSE_PAYOUT_TABLE), "league.shot_clock_seconds": 70,
        "league.hands_per_hour": 30, "league.timezone": "Australia/Sydney"}
    for name, kind in EVENT_TYPES.items():
        spec = FINALS.get((name, league_kind)) or FINALS.get((name, LeagueKind.CASH))
        stack = spec.starting_stack if kind.is_final and spec else DEFAULT_STARTING_STACKS.get(name, 10_000)
        money, shares = default_money(name, league_kind), default_shares(name, league_kind)
        values.update({
            f"{name}.awards_points": kind.awards_points, f"{name}.starting_stack": stack,
            f"{name}.bonus_windows": BonusWindows.START_AND_MAJOR_BREAK.value,
            f"{name}.registration_close_minutes": None, f"{name}.reentry": ReEntry.OFF.value,
            f"{name}.reentry_limit": 1, f"{name}.reentry_until_minutes": None,
            f"{name}.hand_for_hand_minutes": HFH_DEFAULT_MINUTES,
            f"{name}.buy_in": money.buy_in, f"{name}.guarantee": money.guarantee,
            f"{name}.pool_share": money.pool_share, f"{name}.final_share": shares.final_share,
            f"{name}.top50_share": shares.top50_share})
        for bonus in BONUS_KINDS:
            values[f"{name}.bonus_{bonus}"] = DEFAULT_BONUS_VALUES[name].get(bonus, 0)
    return values


def from_stored(league_kind: str, stored: Mapping[str, Any] | None, columns: Mapping[str, Any]) -> dict[str, Any]:
    """The league's effective settings: THPA's defaults overlaid with what it stores. `columns` are the
    League row's own (pass_down, payout_percent, shot_clock_seconds, timezone); `stored` its settings
    JSON, per event type ({"nightly": {"starting_stack": …, "bonuses": {kind: chips}, …}}) and
    "league" for the league-wide rest. A stored value of the wrong shape is passed over (its default
    stands), so a hand-edited row can never break a page."""
    defaults = thpa_defaults(league_kind)
    values = _overlaid(defaults, stored, columns)
    # Anything stored that fails its check falls back to the default.
    for key, value in list(values.items()):
        if value_problem(BY_KEY[key], value):
            values[key] = defaults[key]
    return values


def stored_problems(league_kind: str, stored: Any, columns: Mapping[str, Any]) -> list[str]:
    """Why the settings a league row holds (its settings JSON and columns, as from_stored reads them)
    cannot stand, by the same checks as the settings form (`problems`: each value, then what values
    say together, R-PAY-3's shares within the buy-in, R-ENTRY-1's re-entries within registration):
    what a league file brings is refused where from_stored would quietly pass over it. Empty when all
    is well."""
    if stored is not None and not isinstance(stored, Mapping):
        return [f"the settings must be an object, not {type(stored).__name__}"]
    return list(problems(_overlaid(thpa_defaults(league_kind), stored, columns), league_kind).values())


def snapshot_problems(snapshot: Any, event_type: str) -> list[str]:
    """Why a night's kept settings (event_snapshot's form) cannot be read by its pages: each value it
    holds by its setting's own check (value_problem), its bonuses {kind: chips} of known kinds, its
    payout table as the settings form takes it. Keys no setting has are left alone."""
    if snapshot is None:
        return []
    if not isinstance(snapshot, Mapping):
        return [f"the night's settings must be an object, not {type(snapshot).__name__}"]
    group = event_type if event_type in EVENT_TYPES else "nightly"
    found: list[str] = []
    for name, value in snapshot.items():
        if name == "bonuses":
            if not isinstance(value, Mapping):
                found.append("the night's bonuses must be an object of chips by kind")
                continue
            for kind, chips in value.items():
                setting = BY_KEY.get(f"{group}.bonus_{kind}")
                found.append(f"the night's bonus {str(kind)[:40]!r} is no bonus kind" if setting is None
                             else value_problem(setting, chips))
        elif name == "payout_table":
            found.append(payout_table_problem(_table_from_json(value)))
        elif setting := BY_KEY.get(f"{group}.{name}") or BY_KEY.get(f"{LEAGUE}.{name}"):
            found.append(value_problem(setting, value))
    return [problem for problem in found if problem]


def _overlaid(defaults: Mapping[str, Any], stored: Any, columns: Mapping[str, Any]) -> dict[str, Any]:
    """The defaults with what the league stores laid over them, unchecked (from_stored's first step)."""
    values = dict(defaults)
    stored = stored if isinstance(stored, Mapping) else {}
    for name in ("pass_down", "payout_percent", "shot_clock_seconds", "timezone"):
        if columns.get(name) is not None:
            values[f"{LEAGUE}.{name}"] = columns[name]
    wide = stored.get(LEAGUE) if isinstance(stored.get(LEAGUE), Mapping) else {}
    for name in ("hands_per_hour", "payout_table"):
        if name in wide:
            values[f"{LEAGUE}.{name}"] = _table_from_json(wide[name]) if name == "payout_table" else wide[name]
    for event_type in EVENT_TYPES:
        chosen = stored.get(event_type)
        if not isinstance(chosen, Mapping):
            continue
        for setting in _event_settings(event_type):
            if setting.name.startswith("bonus_") and setting.name != "bonus_windows":
                bonuses = chosen.get("bonuses")
                if isinstance(bonuses, Mapping):
                    values[setting.key] = bonuses.get(setting.name.removeprefix("bonus_"), 0)
            elif setting.name in chosen:
                values[setting.key] = chosen[setting.name]
    return values


def _table_from_json(raw: Any) -> Any:
    if not isinstance(raw, Mapping):
        return raw
    try:
        return {int(places): tuple(row) for places, row in raw.items()}
    except (TypeError, ValueError):
        return raw


def to_stored(values: Mapping[str, Any], previous: Mapping[str, Any] | None = None
              ) -> tuple[dict[str, Any], dict[str, Any]]:
    """(settings JSON, League columns) for these effective settings: the inverse of from_stored.
    Keys of `previous` (the JSON as stored) that are no setting of this module are kept, so what
    another part of the app keeps there is not lost."""
    stored: dict[str, Any] = {k: v for k, v in (previous or {}).items() if k not in GROUPS}
    columns = {name: values[f"{LEAGUE}.{name}"] for name in ("pass_down", "payout_percent", "shot_clock_seconds",
                                                              "timezone")}
    stored[LEAGUE] = {"hands_per_hour": values["league.hands_per_hour"],
                      "payout_table": {str(p): list(row) for p, row in values["league.payout_table"].items()}}
    for event_type in EVENT_TYPES:
        old = (previous or {}).get(event_type)
        chosen: dict[str, Any] = dict(old) if isinstance(old, Mapping) else {}
        chosen["bonuses"] = {}
        for setting in _event_settings(event_type):
            if setting.name.startswith("bonus_") and setting.name != "bonus_windows":
                chosen["bonuses"][setting.name.removeprefix("bonus_")] = values[setting.key]
            else:
                chosen[setting.name] = values[setting.key]
        stored[event_type] = chosen
    return stored, columns


def event_snapshot(values: Mapping[str, Any], event_type: str) -> dict[str, Any]:
    """What a new night of `event_type` keeps of the league's settings when it is created: its type's
    settings (bonuses as {kind: chips} of the kinds it takes) and the league-wide ones a night reads
    (paid places, payout table, called clock, hands per hour). Later changes leave it as it is."""
    if event_type not in EVENT_TYPES:
        event_type = "nightly"
    snap: dict[str, Any] = {"bonuses": {}}
    for setting in _event_settings(event_type):
        if setting.name.startswith("bonus_") and setting.name != "bonus_windows":
            snap["bonuses"][setting.name.removeprefix("bonus_")] = values[setting.key]
        else:
            snap[setting.name] = values[setting.key]
    for name in ("payout_percent", "shot_clock_seconds", "hands_per_hour"):
        snap[name] = values[f"{LEAGUE}.{name}"]
    snap["payout_table"] = {str(p): list(row) for p, row in values["league.payout_table"].items()}
    return snap


# --- Reading what the organiser typed, and why a value is refused ---------------------------------

def format_value(setting: Setting, value: Any) -> str:
    """The value as the settings form shows it (and the change record reads)."""
    if setting.kind == Kind.YES_NO:
        return "yes" if value else "no"
    if value is None:
        return ""
    if setting.kind == Kind.PAYOUT_TABLE:
        return "\n".join(f"{places}: " + "/".join(str(p) for p in row) for places, row in sorted(value.items()))
    return str(value)


def parse(setting: Setting, text: str | None) -> tuple[Any, str | None]:
    """(value, None) for what was typed, or (None, the reason it is refused)."""
    text = (text or "").strip()
    if setting.kind == Kind.YES_NO:
        return text in ("1", "y", "yes", "on", "true"), None
    if setting.kind in (Kind.WHOLE, Kind.WHOLE_OR_NONE):
        if setting.kind == Kind.WHOLE_OR_NONE and text == "":
            return None, None
        plain = text.replace(",", "").replace("_", "")
        if not plain.isascii() or not plain.isdigit():
            return None, f"{setting.label}: give a whole number from {setting.minimum:,} to {setting.maximum:,}"
        value = int(plain)
    elif setting.kind == Kind.PAYOUT_TABLE:
        value, problem = parse_payout_table(text)
        return (None, problem) if problem else (value, None)
    else:
        value = text
    problem = value_problem(setting, value)
    return (None, problem) if problem else (value, None)


def value_problem(setting: Setting, value: Any) -> str | None:
    """Why `value` cannot be this setting's (out of bounds, not a choice, an unknown zone), or None."""
    if setting.kind == Kind.YES_NO:
        return None if isinstance(value, bool) else f"{setting.label}: yes or no"
    if setting.kind in (Kind.WHOLE, Kind.WHOLE_OR_NONE):
        if value is None and setting.kind == Kind.WHOLE_OR_NONE:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or not setting.minimum <= value <= setting.maximum:
            unit = f" {setting.unit}" if setting.unit and setting.unit != "$" else ""
            return f"{setting.label}: a whole number from {setting.minimum:,} to {setting.maximum:,}{unit}"
        return None
    if setting.kind == Kind.CHOICE:
        allowed = [key for key, _ in setting.choices]
        return None if value in allowed else f"{setting.label}: one of {', '.join(allowed)}"
    if setting.kind == Kind.ZONE:
        return None if zone_known(value) else f"{setting.label}: {str(value)[:60]!r} is not a time zone"
    if setting.kind == Kind.PAYOUT_TABLE:
        return payout_table_problem(value)
    return None  # pragma: no cover - every kind is handled above


@cache
def _zones() -> frozenset[str]:
    return frozenset(available_timezones())  # reads the zone files: once per process


@cache
def zone_names() -> tuple[str, ...]:
    """R-STD-1: the time zones a league's venues may be in, sorted (the list a new league picks from)."""
    return tuple(sorted(name for name in _zones() if "/" in name and not name.startswith(("Etc/", "SystemV/"))))


def zone_known(name: Any) -> bool:
    """Whether `name` is an IANA time zone this machine knows (Australia/Sydney, Europe/London…)."""
    if not isinstance(name, str) or not name or len(name) > 64 or name not in _zones():
        return False
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return False
    return True


def parse_payout_table(text: str) -> tuple[Any, str | None]:
    """R-PAY-1: a payout table as typed, one line per number of paid places ("3: 50/30/20"); blank:
    the house table. (table, None) or (None, the line that is wrong and why)."""
    if not text.strip():
        return dict(HOUSE_PAYOUT_TABLE), None
    table: dict[int, tuple[int, ...]] = {}
    for number, line in enumerate(text.replace(";", "\n").splitlines(), 1):
        if not line.strip():
            continue
        places, colon, row = line.partition(":")
        try:
            count = int(places.strip())
            shares = tuple(int(p.strip().rstrip("%")) for p in row.replace(",", "/").split("/"))
        except ValueError:
            return None, f"Payout table, line {number}: write it as places: percent/percent/… (3: 50/30/20)"
        if not colon:
            return None, f"Payout table, line {number}: write it as places: percent/percent/… (3: 50/30/20)"
        if count in table:
            return None, f"Payout table, line {number}: {count} paid places is listed twice"
        table[count] = shares
    return table, payout_table_problem(table)


def payout_table_problem(table: Any) -> str | None:
    """R-PAY-1: why a payout table cannot be the league's (a row whose length is not its number of places,
    shares not adding to 100, a later place paid more than an earlier one), or None."""
    if not isinstance(table, Mapping) or not table:
        return "Payout table: give at least one row"
    for places, row in sorted(table.items()):
        if not isinstance(places, int) or not 1 <= places <= MAX_PAID_PLACES:
            return f"Payout table: paid places from 1 to {MAX_PAID_PLACES}, not {places}"
        if len(row) != places:
            return f"Payout table, {places} places: give {places} percentages, not {len(row)}"
        if any(not isinstance(p, int) or p < 1 for p in row):
            return f"Payout table, {places} places: every paid place gets at least 1 %"
        if sum(row) != 100:
            return f"Payout table, {places} places: the percentages add to {sum(row)}, not 100"
        if any(later > earlier for earlier, later in zip(row, row[1:], strict=False)):
            return f"Payout table, {places} places: a lower place cannot be paid more than a higher one"
    return None


def problems(values: Mapping[str, Any], league_kind: str) -> dict[str, str]:
    """Every reason the whole set of settings cannot stand, by key: each value's own bounds, then what
    settings say together: R-PAY-3, the night's, Monthly Final's and Top-50 shares are parts of the
    buy-in (the rest is the fee); a free-to-play league's games are free; R-ENTRY-1, re-entries
    cannot run past the end of registration when registration closes at a set time... ."""
    found: dict[str, str] = {}
    for key, value in values.items():
        setting = BY_KEY.get(key)
        if setting is None:
            found[key] = f"{key}: no such setting"
        elif problem := value_problem(setting, value):
            found[key] = problem
    for event_type, kind in EVENT_TYPES.items():
        g = event_type
        if kind.is_final and values.get(f"{g}.awards_points") is True:
            found[f"{g}.awards_points"] = (f"{kind.label}: finals award no points (R-PTS-8); the standings "
                                           "count nightly and high-roller games")
        money = [values.get(f"{g}.{name}") for name in ("buy_in", "pool_share", "final_share", "top50_share")]
        if any(f"{g}.{name}" in found for name in ("buy_in", "pool_share", "final_share", "top50_share")):
            continue
        buy_in, *shares = money
        if league_kind != LeagueKind.CASH and (buy_in or any(shares) or values.get(f"{g}.guarantee")):
            found[f"{g}.buy_in"] = f"{kind.label}: a free-to-play league's games are free"
        elif sum(shares) > buy_in:
            found[f"{g}.pool_share"] = (f"{kind.label}: the pool shares (${sum(shares)}) add to more than the "
                                        f"buy-in (${buy_in}); the rest of the buy-in is the fee")
        close, until = values.get(f"{g}.registration_close_minutes"), values.get(f"{g}.reentry_until_minutes")
        if (values.get(f"{g}.reentry") != ReEntry.OFF and close is not None and until is not None
                and until > close and f"{g}.reentry_until_minutes" not in found):
            found[f"{g}.reentry_until_minutes"] = (f"{kind.label}: re-entries cannot run past the close of "
                                                   f"registration ({close} minutes)")
    return found


def changed(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[tuple[str, Any, Any]]:
    """The settings whose value differs, as (key, old, new), in the settings' own order."""
    return [(s.key, old.get(s.key), new.get(s.key)) for s in SETTINGS
            if s.key in new and old.get(s.key) != new.get(s.key)]
