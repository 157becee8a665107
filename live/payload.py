"""The clock payload every live screen reads (R-CLOCK-1..4, R-CHIP-3, R-SEAT)."""
from __future__ import annotations

from typing import Any

from league import clock, structures
from live import seats
from services import field, pool_shares
from services.clocks import now_ms, state_of, structure_of, with_registration_close
from services.models import Event


def clock_payload(event: Event, at_ms: int | None = None) -> dict[str, Any]:
    """The clock as JSON for /api/events/<id>/clock and every live screen.

    Devices tick locally from `state` and `structure` plus their offset from `server_time_ms`;
    the derived fields are the truth at `server_time_ms` for anything that just reads once.
    """
    at_ms = now_ms() if at_ms is None else at_ms
    structure = structure_of(event)
    state = state_of(event)
    v = with_registration_close(event, clock.view(structure, state, at_ms))
    entries = field.entries_of(event)
    _, average = field.chip_count(event, entries)
    nxt = v.next_item
    prizes = field.prize_table(event, entries)  # R-PAY-1: 1st first, for the field as it stands
    shot = clock.shot_rule((event.settings or {}).get("shot_clock_seconds") or event.league.shot_clock_seconds)
    return {
        "event_id": event.id, "version": state.version, "server_time_ms": at_ms,
        "level": v.level_number, "index": v.index, "is_break": v.is_break, "break_label": v.break_label,
        "colour_up": v.colour_up, "is_major_break": v.is_major_break,
        "small_blind": v.small_blind, "big_blind": v.big_blind, "ante": v.ante,
        "remaining_ms": v.remaining_ms, "overtime_ms": v.overtime_ms, "running": v.running, "started": v.started,
        "ms_to_next_break": v.ms_to_next_break, "registration_open": v.registration_open,
        "next": None if nxt is None else {
            "index": nxt.index, "is_break": nxt.is_break, "label": nxt.label, "minutes": nxt.minutes,
            "small_blind": nxt.small_blind, "big_blind": nxt.big_blind, "ante": nxt.ante},
        "players_left": field.players_left(event, entries),
        "seats": seats.seat_digest(event, entries),
        "average_stack": average,
        "prizes": prizes,
        # R-PAY-3: before anyone sits down, the shares a Monthly Final's pool draws from its month
        "pool_shares": pool_shares.shares_drawn(event) if not prizes and event.buy_in else 0,
        "shot": None if event.shot_started_ms is None else {
            "started_ms": event.shot_started_ms, "seat": event.shot_seat or "",
            "length_s": shot.length_s, "warning_s": shot.warning_s, "count_s": shot.count_s},
        "state": {"index": state.index, "item_elapsed_ms": state.item_elapsed_ms,
                  "running_since_ms": state.running_since_ms, "started": state.started},
        "structure": structures.to_json(structure),
    }
