"""An event's clock in the database: read it, change it (one host action, one transaction, which
the caller commits and announces), and the blind structure in the JSON form and digest every screen
gets. league/clock.py decides; this module stores; live/ makes and sends what the screens read."""
from __future__ import annotations

import dataclasses
import hashlib
import json
import time
from typing import Any

from sqlalchemy import bindparam, inspect, update
from sqlalchemy.orm.attributes import set_committed_value

from league import clock, hand_for_hand, structures
from league.statuses import EntryStatus, EventStatus
from services import push, typed_text
from services.journal import Journal
from services.models import Entry, Event
from wiring.extensions import db

MINUTE_MS = 60_000


class StaleClock(Exception):
    """The host acted on a clock that has changed since their screen showed it (a double tap on
    flaky wifi, or a second host): nothing was changed."""


def now_ms() -> int:
    """Server time in epoch milliseconds: the one truth every device's offset is measured against."""
    return time.time_ns() // 1_000_000


# The structures read in this process, by event: (the stored JSON as it was read, the structure, its
# JSON form as the payload sends it, that form's digest). A host's tap and every message of the night
# would otherwise parse the same 20-odd items again; the stored JSON is compared on every read, so a
# changed structure is never missed (whichever process changed it). Bounded: cleared when it grows
# past _STRUCTURES_KEPT events.
_Read = tuple[structures.Structure, list[dict[str, Any]], str]
_STRUCTURES: dict[int, tuple[list, _Read]] = {}
_STRUCTURES_KEPT = 512
_DEFAULTS: dict[str, _Read] = {}


def _read(structure: structures.Structure) -> _Read:
    as_json = structures.to_json(structure)
    digest = hashlib.blake2b(json.dumps(as_json, sort_keys=True).encode(), digest_size=6).hexdigest()
    return structure, as_json, digest


def _structure_entry(event: Event) -> _Read:
    stored = event.structure
    if not stored:
        default = _DEFAULTS.get(event.event_type)
        if default is None:
            default = _DEFAULTS[event.event_type] = _read(structures.default_structure(event.event_type))
        return default
    cached = _STRUCTURES.get(event.id)
    if cached is not None and cached[0] == stored:
        return cached[1]
    read = _read(structures.from_json(stored, submitted=False))  # checked when it was saved
    if len(_STRUCTURES) >= _STRUCTURES_KEPT:
        _STRUCTURES.clear()
    # a copy of each item: the cache must not follow an in-place change of the loaded value
    _STRUCTURES[event.id] = ([dict(item) for item in stored], read)
    return read


def structure_of(event: Event) -> structures.Structure:
    """The event's blind structure (R-CLOCK-1), or its type's default template."""
    return _structure_entry(event)[0]


def structure_json(event: Event) -> list[dict[str, Any]]:
    """R-CLOCK-1: the event's structure in its JSON form (structures.to_json), as every screen gets it.
    Shared by every caller in this process: read it, never change it."""
    return _structure_entry(event)[1]


def structure_digest(event: Event) -> str:
    """R-CLOCK-1, R-CLOCK-3: 12 hex digits naming the structure's JSON form: a screen that holds the
    structure of this digest needs only the clock's state from a stream message; another asks again."""
    return _structure_entry(event)[2]


def state_of(event: Event) -> clock.ClockState:
    """The stored clock state."""
    return clock.ClockState(index=event.clock_index, item_elapsed_ms=event.clock_item_elapsed_ms,
                            running_since_ms=event.clock_running_since_ms, started=event.clock_started,
                            version=event.clock_version)


def _shift(delta_ms: int):
    return lambda structure, state, now: clock.adjust(structure, state, now, delta_ms)


ACTIONS = {
    "start": clock.start, "pause": clock.pause, "resume": clock.resume,
    "next": clock.next_level, "previous": clock.previous_level,
    "plus": _shift(MINUTE_MS), "minus": _shift(-MINUTE_MS),
}


SHOT_SEAT_LENGTH = 40  # Event.shot_seat is String(40)
_CLOCK_WRITES: dict[tuple[str, ...], Any] = {}


def _clock_write(columns: tuple[str, ...]):
    """The tap's conditional UPDATE of these columns, built once per set of columns (a statement built
    per tap costs as much again as running it): `new_<column>` the values, then the event and the
    version the host saw."""
    statement = _CLOCK_WRITES.get(columns)
    if statement is None:
        table = Event.__table__
        statement = _CLOCK_WRITES[columns] = update(table).where(
            table.c.id == bindparam("event_id"), table.c.clock_version == bindparam("seen_version")).values(
            {column: bindparam(f"new_{column}") for column in columns})
    return statement


# R-HFH-1/2: the clock form's hand-for-hand actions; unlike the other taps each is journalled (Undo).
HAND_FOR_HAND_ACTIONS = ("hand_for_hand_on", "hand_for_hand_off", "next_hand")


def _players_left(event: Event) -> int:
    return db.session.scalar(db.select(db.func.count()).select_from(Entry).where(
        Entry.event_id == event.id, Entry.status == EntryStatus.PLAYING)) or 0


def _hand_for_hand(event: Event, action: str, state: clock.ClockState, now: int
                   ) -> tuple[clock.ClockState, dict[str, Any], str]:
    """R-HFH-1/2: a hand-for-hand tap, checked: the clock as it leaves it, the event's hand-for-hand
    columns it writes, and the journal's words. On: the clock stops; Next hand: a new hand, numbered
    through the night, and the set minutes off the level; off: the clock stays stopped (the host
    resumes it, as after a pause), and the last hand stays the one bust-outs are recorded in until it
    runs again (the other tables may still be finishing it, R-HFH-3)."""
    structure = structure_of(event)
    on = event.hand_for_hand
    if action == "hand_for_hand_on":
        hand_for_hand.check_on(on, state.started, _players_left(event))
        return (hand_for_hand.stop(structure, state, now), {"hand_for_hand": True, "hand_number": None},
                "Hand-for-hand on: the clock stops between hands")
    if action == "hand_for_hand_off":
        hand_for_hand.check_off(on)
        # the last hand stays the one a bust-out still to be recorded is in, until the clock runs again
        return clock.adjust(structure, state, now, 0), {"hand_for_hand": False}, "Hand-for-hand off"
    hand_for_hand.check_next_hand(on)
    minutes = hand_for_hand.minutes_per_hand(event.setting("hand_for_hand_minutes"))
    number = hand_for_hand.next_hand_number(event.hands_dealt or 0)
    return (hand_for_hand.deal(structure, state, now, minutes), {"hand_number": number, "hands_dealt": number},
            f"Next hand: hand {number} on every table, {minutes} min off the level")


def seen_clock(event: Event) -> str:
    """R-CLOCK-3: the clock itself as a screen shows it (its stored state, the called clock,
    hand-for-hand and the structure), not the field: static/host/controls.js makes the same text from
    the stream's message, for a tap kept offline to say which clock it was tapped on."""
    hand = event.hand_number if event.hand_for_hand and event.hand_number is not None else ""
    running = "" if event.clock_running_since_ms is None else event.clock_running_since_ms
    shot = "" if event.shot_started_ms is None else event.shot_started_ms
    return (f"{event.clock_index}:{event.clock_item_elapsed_ms}:{running}:{int(bool(event.clock_started))}:{shot}:"
            f"{int(bool(event.hand_for_hand))}:{hand}:{structure_digest(event)}")


def act(event: Event, action: str, seen_version: int, *, index: int | None = None,
        seat: str | None = None, user_id: int | None = None, tapped_at_ms: int | None = None,
        seen: str | None = None) -> clock.ClockState:
    """R-CLOCK-3/4, R-HFH-1/2: apply one host action to the clock the host last saw (`seen_version`),
    at the moment it was tapped (`tapped_at_ms`, a tap kept on the host's phone while the signal was
    down, bounded by clock.tap_time), else now.

    Raises StaleClock when the clock moved on since (nothing changes), ValueError when the rule
    refuses (e.g. pausing a paused clock, Next hand without hand-for-hand, clock.TapTooOld). A tap kept
    offline also says the clock it was tapped on (`seen`, seen_clock's text): while the clock is still
    that one, a version moved on by the field alone (an arrival, a bust-out) does not make it stale.
    The write is conditional
    on the version, so two hosts tapping at the same moment cannot both win. A hand-for-hand action
    is journalled too, by `user_id` (Undo takes it back; like every undo, not the clock's time). The
    caller commits and publishes.
    """
    if event.status == EventStatus.CANCELLED:
        raise ValueError("This night was cancelled: its clock can't run (undo the cancellation first).")
    if event.status == EventStatus.SETTLED:
        raise ValueError("This night is settled: its clock has stopped. To play on, undo the settle on the "
                         "Players tab first.")
    state = state_of(event)
    if seen_version != state.version:
        if seen is None or seen != seen_clock(event):
            raise StaleClock()
        seen_version = state.version  # the clock as the host saw it: only the field moved on
    now = clock.tap_time(tapped_at_ms, now_ms(), last_change_ms(event, state) or None)
    values: dict[str, Any] = {}
    log = None
    if action in HAND_FOR_HAND_ACTIONS:
        new, values, summary = _hand_for_hand(event, action, state, now)
        log = Journal(event, user_id, action, summary)
        log.touch(event)  # its hand-for-hand columns as they were, for Undo
    elif action == "jump":
        new = clock.jump_to(structure_of(event), state, now, index if index is not None else -1)
    elif action in ("shot", "shot_off"):
        # The seat is shown on every phone: the one hygiene check of typed text (a NUL, a control or a
        # right-to-left mark is refused, nothing written), at most what the column holds.
        called = typed_text(seat or "", SHOT_SEAT_LENGTH, "the seat") or None if action == "shot" else None
        new = clock.ClockState(state.index, state.item_elapsed_ms, state.running_since_ms, state.started,
                               state.version + 1)
        values = {"shot_started_ms": now if action == "shot" else None, "shot_seat": called}
    elif action in ACTIONS:
        if action in ("start", "resume"):
            hand_for_hand.check_clock_runs(event.hand_for_hand)
            # R-HFH-3: play runs again: the last hand-for-hand hand is over, no bust-out is in it now
            values = {"hand_number": None} if event.hand_number is not None else {}
        new = ACTIONS[action](structure_of(event), state, now)
        if action == "start":
            values["status"] = EventStatus.RUNNING  # play has commenced
    else:
        raise ValueError(f"unknown clock action {action!r}")
    values.update(clock_index=new.index, clock_item_elapsed_ms=new.item_elapsed_ms,
                  clock_running_since_ms=new.running_since_ms, clock_started=new.started, clock_version=new.version,
                  clock_changed_ms=now)
    # On the session's connection (its transaction): a table's UPDATE needs none of the ORM's
    # execution path, which every tap would otherwise pay for.
    changed = db.session.connection().execute(_clock_write(tuple(values)), {
        "event_id": event.id, "seen_version": state.version, **{f"new_{key}": value for key, value in values.items()}})
    if changed.rowcount != 1:
        raise StaleClock()
    # The row is now exactly what was read plus these values (the write was conditional on the
    # version): the event shows them without reading the row again.
    for key, value in values.items():
        set_committed_value(event, key, value)
    if log is not None:
        log.record()
    if action not in ("shot", "shot_off"):  # R-LATE-3: the moment registration closes may have moved
        push.schedule_registration_closing(event, registration_closes_in_ms(event))
    return new


def stop(event: Event) -> None:
    """R-CLOCK-3: the night is over (settling it): a running clock stops where it stands, as a pause
    would, and a called clock goes, inside the caller's action (its lock moved the version on
    already, so every screen hears of it). Undo never starts it again (the journal leaves the clock
    alone): a night reopened waits for the host's Resume, its levels where they stopped."""
    state = state_of(event)
    if state.running_since_ms is not None:
        stopped = clock.pause(structure_of(event), state, now_ms())
        event.clock_index, event.clock_item_elapsed_ms = stopped.index, stopped.item_elapsed_ms
        event.clock_running_since_ms = None
        event.clock_changed_ms = now_ms()
    event.shot_started_ms = event.shot_seat = None


def set_structure(event: Event, structure: structures.Structure, seen_version: int) -> None:
    """R-CLOCK-1: give the event a new blind structure. The clock keeps its place (index and time
    in it); the version moves on so every screen re-reads the structure. Raises StaleClock."""
    changed = db.session.execute(
        update(Event).where(Event.id == event.id, Event.clock_version == seen_version).values(
            structure=structures.to_json(structure), clock_version=seen_version + 1)
        .execution_options(synchronize_session=False))
    if changed.rowcount != 1:
        raise StaleClock()
    db.session.expire(event)
    # R-LATE-3: a new structure moves when registration closes
    push.schedule_registration_closing(event, registration_closes_in_ms(event))


def touch(event: Event) -> None:
    """The field changed (arrivals, bust-outs): move the version on so every screen re-reads
    players left and the average stack. The clock itself is unchanged."""
    # The id from the session's identity map: after the lock's commit, reading `event.id` would load
    # the whole row only to write it again.
    event_id = inspect(event).identity[0]
    db.session.execute(update(Event).where(Event.id == event_id).values(clock_version=Event.clock_version + 1)
                       .execution_options(synchronize_session=False))
    db.session.expire(event)


def stored_versions(event_ids: list[int]) -> dict[int, int]:
    """R-CLOCK-3: {event id: clock version} as committed, for the events a process's phones watch:
    one read per heartbeat round, so a lost change notice is found within a round."""
    db.session.close()  # a fresh read: an open snapshot would show old versions
    rows = db.session.execute(db.select(Event.id, Event.clock_version).where(Event.id.in_(event_ids)))
    return {event_id: version for event_id, version in rows}


def last_change_ms(event: Event, state: clock.ClockState) -> int:
    """R-CLOCK-3: the moment the stored clock has told the time from (0: never changed), the earliest a
    kept tap is applied at and a kept moment is read on: its last change, or, on a row from before that
    was kept, when it last started running (a moment earlier would count time backwards)."""
    return max(event.clock_changed_ms or 0, state.running_since_ms or 0)


def clock_view(event: Event, at_ms: int | None = None) -> clock.ClockView:
    """The event's clock now, or at `at_ms` (R-CLOCK-3, R-LATE-1: the moment an action kept on the
    host's phone was tapped) where the stored clock still tells it: a moment after the clock's last
    change (before it, the clock was another one; then: now)."""
    state, now = state_of(event), now_ms()
    at = at_ms if at_ms is not None and last_change_ms(event, state) <= at_ms <= now else now
    return with_registration_close(event, clock.view(structure_of(event), state, at))


def with_registration_close(event: Event, view: clock.ClockView) -> clock.ClockView:
    """R-LATE-1: registration closes when the major break commences, or after the minutes of play the
    night's settings name (its snapshot: Event.setting)."""
    minutes = close_after_minutes(event)
    if minutes is None:
        return view
    return dataclasses.replace(view, registration_open=clock.registration_open_after(view, minutes))


def close_after_minutes(event: Event) -> int | None:
    """R-LATE-1: the minutes of play after which the night's settings close registration (None: at the
    major break)."""
    minutes = event.setting("registration_close_minutes")
    return minutes if isinstance(minutes, int) and not isinstance(minutes, bool) else None


def registration_closes_in_ms(event: Event) -> int | None:
    """R-LATE-1, R-LATE-3: how long until the night's registration closes as its clock runs now (None:
    closed, never closing, or the clock stopped)."""
    return clock.ms_until_registration_closes(structure_of(event), state_of(event), now_ms(),
                                              close_after_minutes(event))



CLOSING_TOLERANCE_MS = 1000  # the moment is computed again from the same stored clock: only rounding differs


def registration_still_closing_at(event_id: int, closes_at_ms: int) -> bool:
    """R-LATE-1: the night's registration still closes at that moment (its clock was not paused, skipped
    or edited since the push message was scheduled: each of those scheduled a new one)."""
    event = db.session.get(Event, event_id)
    if event is None or event.status in (EventStatus.SETTLED, EventStatus.CANCELLED):
        return False
    closes_in = registration_closes_in_ms(event)
    return closes_in is not None and abs(now_ms() + closes_in - closes_at_ms) <= CLOSING_TOLERANCE_MS
