"""Re-entries and rebuys (R-ENTRY-1..2): the setting per event type, and whether a player may buy
back in now.

The league's settings per event type: `settings[event_type]["reentry"]` "off" | "reentry" | "rebuy"
(off in the THPA defaults), `["reentry_limit"]` the buy-backs allowed each player (a whole number
≥ 1, default 1), `["reentry_until_minutes"]` the minutes of play the period lasts, or None: until
registration closes (R-LATE-1)."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from league.statuses import EntryStatus, ReentryMode

DEFAULT_MODE = ReentryMode.OFF
DEFAULT_LIMIT = 1
DEFAULT_UNTIL_MINUTES: int | None = None  # when registration closes (R-LATE-1)
MAX_LIMIT = 99
MAX_UNTIL_MINUTES = 24 * 60

DEFAULTS: dict[str, Any] = {"reentry": DEFAULT_MODE.value, "reentry_limit": DEFAULT_LIMIT,
                            "reentry_until_minutes": DEFAULT_UNTIL_MINUTES}


@dataclass(frozen=True)
class ReentryRule:
    """R-ENTRY-1: one event type's re-entry setting."""
    mode: ReentryMode = DEFAULT_MODE
    limit: int = DEFAULT_LIMIT
    until_minutes: int | None = DEFAULT_UNTIL_MINUTES


def _whole(value: Any, low: int, high: int) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        return None
    return value


def reentry_rule(settings: Mapping[str, Any] | None, event_type: str) -> ReentryRule:
    """R-ENTRY-1: the re-entry setting of `event_type` from the league's settings; each part missing
    or not one of its values is its default (off, a limit of 1, until registration closes)."""
    own = (settings or {}).get(event_type) or {}
    if not isinstance(own, Mapping):
        own = {}
    mode = own.get("reentry", DEFAULT_MODE)
    mode = ReentryMode(mode) if mode in set(ReentryMode) else DEFAULT_MODE
    limit = _whole(own.get("reentry_limit", DEFAULT_LIMIT), 1, MAX_LIMIT) or DEFAULT_LIMIT
    until = own.get("reentry_until_minutes", DEFAULT_UNTIL_MINUTES)
    until = None if until is None else _whole(until, 0, MAX_UNTIL_MINUTES)
    return ReentryRule(mode, limit, until)


def period_open(rule: ReentryRule, *, play_elapsed_ms: int, registration_open: bool) -> bool:
    """R-ENTRY-1: whether the re-entry (or rebuy) period is still on: by default while registration
    is open (R-LATE-1), else for the first `until_minutes` minutes of play."""
    if rule.until_minutes is None:
        return registration_open
    return play_elapsed_ms < rule.until_minutes * 60_000


def refusal(rule: ReentryRule, wanted: ReentryMode, *, name: str, status: str, busted: bool, buy_ins: int,
            period: bool) -> str | None:
    """R-ENTRY-1: why player `name` may not buy back in now (None: they may). `wanted` is what the
    host tapped: a re-entry (the player is out: `status` played, `busted` by a recorded bust-out) or
    a rebuy (the player has lost every chip and is still at the table: `status` playing). `buy_ins`
    counts their first entry too, so a limit of 1 allows a second buy-in and no third."""
    word = "rebuy" if wanted == ReentryMode.REBUY else "re-entry"
    if rule.mode == ReentryMode.OFF:
        return "Re-entries and rebuys are off for this game."
    if rule.mode != wanted:
        allowed = "rebuys, not re-entries" if rule.mode == ReentryMode.REBUY else "re-entries, not rebuys"
        return f"This game allows {allowed}."
    if wanted == ReentryMode.REENTRY:
        if status == EntryStatus.PLAYING:
            return f"{name} is still in the game: only a player who has busted can re-enter."
        if status == EntryStatus.DQ:
            return f"{name} was disqualified and can't re-enter."
        if status != EntryStatus.PLAYED or not busted:
            return f"{name} has not busted out of this game."
    elif status == EntryStatus.PLAYED:
        return f"{name} is already recorded out: a rebuy is instead of the bust-out (Undo it first)."
    elif status != EntryStatus.PLAYING:
        return f"{name} is not in the game."
    if buy_ins - 1 >= rule.limit:
        times = "once" if rule.limit == 1 else f"{rule.limit} times"
        return f"{name} has already bought back in {times}, the limit for this game."
    if not period:
        return f"The {word} period is over."
    return None
