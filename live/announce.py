"""Announcing a change (R-CLOCK-3): render the clock fragment once as an SSE message and wake every
screen of the event, in every process."""
from __future__ import annotations

from flask import render_template

from live import notices
from live.payload import clock_payload
from services.models import Event
from wiring.extensions import db


def render_clock(event_id: int) -> tuple[int, bytes]:
    """(version, the clock fragment as one SSE message) as every screen gets it, read afresh."""
    db.session.close()  # a fresh read: an open snapshot would show an old state
    version, message = clock_message(db.get_or_404(Event, event_id))
    db.session.close()
    return version, message


def clock_message(event: Event, clock: dict | None = None) -> tuple[int, bytes]:
    """(version, SSE message) of the clock fragment for `event` as committed."""
    clock = clock_payload(event) if clock is None else clock
    return clock["version"], sse_message(clock["version"], clock_html(event, clock))


def clock_html(event: Event, clock: dict) -> str:
    """R-CLOCK-3: the clock fragment every screen shows, for the payload `clock` of `event`."""
    return render_template("live/_clock.html", event=event, clock=clock)


def sse_message(version: int, html: str) -> bytes:
    """The clock fragment as one SSE message (`id:` its version, `event: clock`), encoded once for every phone."""
    return _sse(version, html).encode()


def announce(event: Event) -> dict:
    """R-CLOCK-3: after a committed change, wake every screen of the event, in every process.

    The message is rendered here, once, before any stream wakes: the first phone need not read
    the state again.
    """
    clock = clock_payload(event)
    hub = notices.hub()
    hub.rendered(event.id, clock["version"], lambda: clock_message(event, clock))
    hub.publish(event.id, clock["version"])
    return clock


def announce_rendered(event_id: int, version: int, message: bytes) -> None:
    """R-CLOCK-3: wake every screen of the event, in every process, with a message rendered before the
    commit of `version` (a clock tap renders it inside its transaction, so that nothing is read
    again after it). Call only once `version` is committed."""
    hub = notices.hub()
    hub.keep(event_id, version, message)
    hub.publish(event_id, version)


def _sse(version: int, html: str) -> str:
    lines = "".join(f"data: {line}\n" for line in html.splitlines() or [""])
    return f"id: {version}\nevent: clock\n{lines}\n"

