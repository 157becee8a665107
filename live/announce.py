"""Announcing a change (R-CLOCK-3): make the stream's message once and wake every screen of the
event, in every process.

A message is the clock's state and the field's figures as one line of JSON (`stream_json`), not the
clock fragment: every screen's clock.js derives the rest (level, blinds, time left, next break) from
the state and the structure it holds, as league/clock.py does, so a tap sends each phone a few
hundred bytes instead of the fragment with the whole blind structure in it (3.4 KB). The structure
rides along only when the change made it; otherwise its digest says whether the phone's copy holds.
"""
from __future__ import annotations

import json

from live import notices
from live.payload import clock_payload, ladder
from services.models import Event
from services.night_snapshot import NightSnapshot
from wiring.extensions import db

# The payload's keys a stream message carries: what clock.js cannot derive from state + structure.
STREAMED = ("event_id", "version", "server_time_ms", "state", "shot", "players_left", "average_stack", "seats",
            "prizes", "structure_digest", "settled", "hand_for_hand", "hand", "hand_for_hand_suggested")


def render_clock(event_id: int) -> tuple[int, bytes]:
    """(version, the stream's message) as every screen gets it, read afresh: a stream's first message
    when none was made in this process. Without the structure: the page that opens the stream holds
    it, and a phone back after the structure changed sees another digest and asks for it."""
    db.session.close()  # a fresh read: an open snapshot would show an old state
    version, message = clock_message(db.get_or_404(Event, event_id))
    db.session.close()
    return version, message


def clock_message(event: Event, clock: dict | None = None, *, structure: bool = False) -> tuple[int, bytes]:
    """(version, SSE message) for `event` as committed (`clock`: its payload, if read already)."""
    clock = clock_payload(event) if clock is None else clock
    return clock["version"], sse_message(clock["version"], stream_json(event, clock, structure=structure))


def stream_json(event: Event, clock: dict, *, structure: bool = False) -> str:
    """R-CLOCK-3, R-PAY-1: one line of JSON for the stream: the `STREAMED` keys of `clock` (the payload,
    or the part of it a stream carries: live/payload.py `streamed`), a settled night's result, the
    prize ladder as the page shows it (`ladder`, rendered once here, not by every phone) and, with
    `structure`, the blind structure itself."""
    lean = {key: clock[key] for key in STREAMED}
    if clock["settled"]:  # the result in the clock's place (a night's last messages only: the rest go without)
        lean["result"] = clock["result"]
    lean["ladder"] = ladder(event, clock["prizes"], clock["pool_shares"])
    if structure:
        lean["structure"] = clock["structure"]
    return json.dumps(lean, separators=(",", ":"))


def sse_message(version: int, data: str) -> bytes:
    """One SSE message (`id:` the version, `event: clock`, `data:` one line), encoded once for every phone."""
    return f"id: {version}\nevent: clock\ndata: {data}\n\n".encode()


def announce(event: Event, *, structure: bool = False, night: NightSnapshot | None = None) -> dict:
    """R-CLOCK-3: after a committed change, wake every screen of the event, in every process
    (`structure`: the change was to the blind structure, which the message then carries; `night`:
    the night as the change left it, when the caller has read it).

    The message is made here, once, before any stream wakes: the first phone need not read
    the state again.
    """
    clock = clock_payload(event, night=night)
    hub = notices.hub()
    hub.rendered(event.id, clock["version"], lambda: clock_message(event, clock, structure=structure))
    hub.publish(event.id, clock["version"])
    return clock


def announce_rendered(event_id: int, version: int, message: bytes) -> None:
    """R-CLOCK-3: wake every screen of the event, in every process, with a message made before the
    commit of `version` (a clock tap makes it inside its transaction, so that nothing is read
    again after it). Call only once `version` is committed."""
    hub = notices.hub()
    hub.keep(event_id, version, message)
    hub.publish(event_id, version)
