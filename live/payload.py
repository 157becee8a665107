"""The clock payload every live screen reads (R-CLOCK-1..4, R-CHIP-3, R-SEAT)."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from flask import current_app, render_template

from league import clock
from league.statuses import EventStatus
from live import seats
from services import pool_shares, results
from services.clocks import now_ms, state_of, structure_digest, structure_json, structure_of, with_registration_close
from services.journal import NOT_JOURNALLED
from services.models import Event
from services.night_snapshot import NightSnapshot, read_night

# The event's columns that the clock's own writes change (services/clocks.py): the field's part of
# the payload does not depend on them, so a tap keeps it.
_CLOCK_COLUMNS = NOT_JOURNALLED["events"]
_FIELD_KEPT = 1024  # events whose figures one process keeps (cleared past it)


def clock_payload(event: Event, at_ms: int | None = None, *, field_version: int | None = None,
                  night: NightSnapshot | None = None) -> dict[str, Any]:
    """The clock as JSON for /api/events/<id>/clock and every live screen.

    Devices tick locally from `state` and `structure` plus their offset from `server_time_ms`;
    the derived fields are the truth at `server_time_ms` for anything that just reads once.
    The rest is `streamed`'s (what a stream message carries), with `field_version` and `night` as there.
    """
    at_ms = now_ms() if at_ms is None else at_ms
    v = with_registration_close(event, clock.view(structure_of(event), state_of(event), at_ms))
    if event.status == EventStatus.SETTLED:  # R-CLOCK-3: the night is over, whatever a clock stored before said
        v = replace(v, running=False, registration_open=False)
    nxt = v.next_item
    return {
        "level": v.level_number, "index": v.index, "is_break": v.is_break, "break_label": v.break_label,
        "colour_up": v.colour_up, "is_major_break": v.is_major_break,
        "small_blind": v.small_blind, "big_blind": v.big_blind, "ante": v.ante,
        "remaining_ms": v.remaining_ms, "overtime_ms": v.overtime_ms, "running": v.running, "started": v.started,
        "ms_to_next_break": v.ms_to_next_break, "registration_open": v.registration_open,
        "next": None if nxt is None else {
            "index": nxt.index, "is_break": nxt.is_break, "label": nxt.label, "minutes": nxt.minutes,
            "small_blind": nxt.small_blind, "big_blind": nxt.big_blind, "ante": nxt.ante},
        **streamed(event, at_ms, field_version=field_version, night=night),
        "structure": structure_json(event),
    }


def streamed(event: Event, at_ms: int | None = None, *, field_version: int | None = None,
             night: NightSnapshot | None = None) -> dict[str, Any]:
    """R-CLOCK-3/4, R-PAY-1/3: the payload's part that clock.js cannot derive from the state and the
    structure, which a stream message carries (live/announce.py `stream_json`): the stored state,
    the called clock and the field's figures, without working out the level (a host's tap makes
    the phones' message from this alone, before the commit).

    The field's part (players left, seats, average stack, prizes) is `field_part`'s, kept while
    the event's version stands; `field_version` is the version whose field the event shows when
    that is not its own (the clock tap that moved the version on changed the clock only); `night`
    the night as the caller read it after its change, if it has.
    """
    state = state_of(event)
    part = field_part(event, state.version if field_version is None else field_version, night)
    shot = None
    if event.shot_started_ms is not None:
        rule = clock.shot_rule((event.settings or {}).get("shot_clock_seconds") or event.league.shot_clock_seconds)
        shot = {"started_ms": event.shot_started_ms, "seat": event.shot_seat or "",
                "length_s": rule.length_s, "warning_s": rule.warning_s, "count_s": rule.count_s}
    return {
        "event_id": event.id, "version": state.version, "server_time_ms": now_ms() if at_ms is None else at_ms,
        # The night is over: every screen shows its result (the places, points, prizes as paid and
        # tickets: services.results.board) instead of the clock.
        "settled": part["result"] is not None, "result": part["result"],
        "players_left": part["players_left"],
        "seats": part["seats"],
        "average_stack": part["average_stack"],
        "prizes": list(part["prizes"]),  # R-PAY-1: 1st first, for the field as it stands
        # R-PAY-3: before anyone sits down, the shares a Monthly Final's pool draws from its month (read
        # apart from the kept field part: it moves when another night of that month is settled)
        "pool_shares": pool_shares.shares_drawn(event) if not part["prizes"] and event.buy_in else 0,
        "shot": shot,
        # R-HFH-1/2: hand-for-hand, the hand in play on every table (None before the host's first Next
        # hand), and whether the host's screen suggests switching it on
        "hand_for_hand": bool(event.hand_for_hand),
        "hand": event.hand_number if event.hand_for_hand else None,
        "hand_for_hand_suggested": part["hand_for_hand_suggested"],
        "state": {"index": state.index, "item_elapsed_ms": state.item_elapsed_ms,
                  "running_since_ms": state.running_since_ms, "started": state.started},
        "structure_digest": structure_digest(event),
    }


@dataclass
class _Kept:
    """The night's figures as of one version (the process's one cache of them, per app): what the
    field part gave, and the prize ladder rendered from its prizes (`ladder`)."""
    version: int
    inputs: tuple
    league: tuple | None
    part: dict[str, Any]
    ladders: dict[tuple, str] = field(default_factory=dict)


def field_part(event: Event, version: int, night: NightSnapshot | None = None) -> dict[str, Any]:
    """R-PTS-5, R-CHIP-3, R-PAY-1/2, R-SEAT-1..4, R-HFH-1: the payload's part that only the field changes
    (players left, the seat digest, the average stack, the prizes as paid, a settled night's result,
    whether hand-for-hand is suggested), as of the event's `version`.

    Every write to a night's entries, bonus chips or journal moves its version on (lock_event), and
    a clock tap moves it on without touching them (`carry`): so this process reads the field (three
    queries, services.night_snapshot) once per change of the field, not once per tap and per stream
    message; given the `night` the caller read, none. What else it reads, the event's own columns
    and its league's settings, is compared on every call.
    """
    kept = _kept(event)
    if kept is not None and kept.version == version:
        return kept.part
    had_league = "league" in event.__dict__
    night = read_night(event) if night is None else night
    _, average = night.chip_count()
    part = {"players_left": night.players_left, "seats": seats.seat_digest(night),
            "average_stack": average, "prizes": tuple(night.prizes),
            "result": results.board(night) if event.status == EventStatus.SETTLED else None,
            "hand_for_hand_suggested": night.hand_for_hand_suggested}
    # The league's settings count only if reading the field read them (a night without the settings'
    # snapshot, a final's kind): when the league was loaded already, it is counted to be safe.
    league = _league_inputs(event) if had_league or "league" in event.__dict__ else None
    figures = _all_kept()
    if len(figures) >= _FIELD_KEPT:
        figures.clear()
    figures[event.id] = _Kept(version, _inputs(event), league, part)
    return part


def ladder(event: Event, prizes, shares_in: int) -> str:
    """R-PAY-1/3: the prize ladder as the page shows it (shared/_prizes.html), rendered once per
    change of the field: kept beside the prizes it shows, by what else it shows (the Monthly Final
    shares drawn, the night's buy-in, guarantee and pool share), so a night's clock taps render it once."""
    kept = _all_kept().get(event.id)
    if kept is None or kept.part["prizes"] != tuple(prizes):
        return _render_ladder(event, prizes, shares_in)
    key = (shares_in, event.buy_in, event.guarantee, event.pool_share)
    if key not in kept.ladders:
        kept.ladders[key] = _render_ladder(event, prizes, shares_in)
    return kept.ladders[key]


def carry(event_id: int, seen: int, version: int) -> None:
    """R-CLOCK-3: a clock tap from `seen` to `version` is committed; it changed the clock only, so
    the figures kept for `seen` hold for `version` too. Call only after the commit: a rolled
    back tap must leave nothing behind."""
    kept = _all_kept().get(event_id)
    if kept is not None and kept.version == seen:
        kept.version = version


def _render_ladder(event: Event, prizes, shares_in: int) -> str:
    return render_template("shared/_prizes.html", event=event, prizes=prizes, shares_in=shares_in).strip()


def _kept(event: Event) -> _Kept | None:
    """The figures this process keeps for `event`, while its own columns and its league's settings
    read as they did then."""
    kept = _all_kept().get(event.id)
    if kept is None or kept.inputs != _inputs(event) or (
            kept.league is not None and kept.league != _league_inputs(event)):
        return None
    return kept


def _all_kept() -> dict[int, _Kept]:
    # Per app (a test's app, a server's), like the hub: event ids repeat across databases.
    return current_app.extensions.setdefault("night_figures", {})


def _inputs(event: Event) -> tuple:
    return tuple(getattr(event, key) for key in _EVENT_INPUTS)


def _league_inputs(event: Event) -> tuple:
    league = event.league
    return tuple(getattr(league, column.key) for column in league.__table__.columns)


_EVENT_INPUTS = tuple(column.key for column in Event.__table__.columns if column.key not in _CLOCK_COLUMNS)
