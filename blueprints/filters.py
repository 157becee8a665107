"""The template filters every page uses (clock times, ordinals, chips, event types), registered once by create_app."""
from __future__ import annotations

from league.events import EVENT_TYPES
from league.finals import FINAL_LABELS, month_label, qualifying_month
from league.statuses import DealMethod, DealStatus, EntryStatus, EventStatus


def clock_time(ms: int | None) -> str:
    """Milliseconds as the clock shows them: m:ss, or h:mm:ss from an hour (rounded up, so 0:00
    shows only when the time is truly up)."""
    seconds = -(-max(ms or 0, 0) // 1000)
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


def ordinal(n: int | None) -> str:
    """1st, 2nd, 3rd, 4th … 11th, 12th, 13th, 21st."""
    if n is None:
        return "–"
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def chips(amount: int | None) -> str:
    """Chips with thousands separators; a dash for none."""
    return "–" if amount is None else f"{amount:,}"


def event_type_label(name: str) -> str:
    """An event type as the league names it (R-PTS-8's types: "Nightly", "Top-10 Shoot-out"); a name
    the league does not know, as it is."""
    kind = EVENT_TYPES.get(name)
    return kind.label if kind else name


def event_name(event) -> str:
    """An event as a list names it: its type, and for a final the month whose final it is (R-QUAL-1..5:
    "Monthly Final for November 2026")."""
    label = event_type_label(event.event_type)
    if event.event_type in FINAL_LABELS:
        return f"{label} for {month_label(qualifying_month(event.date, event.final_month))}"
    return label


FILTERS = {"clock_time": clock_time, "ordinal": ordinal, "chips": chips, "event_type_label": event_type_label,
           "event_name": event_name}


# The vocabularies templates compare with (`entry.status == EntryStatus.PLAYING`), as Jinja globals.
GLOBALS = {vocabulary.__name__: vocabulary for vocabulary in (EventStatus, EntryStatus, DealStatus, DealMethod)}


def init_app(app) -> None:
    """Register every filter and global on the app (once, not by any one blueprint)."""
    app.jinja_env.filters.update(FILTERS)
    app.jinja_env.globals.update(GLOBALS)
