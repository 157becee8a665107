"""One player's part of tonight's game: their entry, the starting stack and bonus values the night's
settings give, and the game they are still in elsewhere (R-CHIP-1, R-FIN, R-LATE-4). The night as a
whole, its field, chips and prizes, is services.night_snapshot's."""
from __future__ import annotations

from league import chips, finals
from league.events import event_type
from league.statuses import LIVE, OPEN_EVENTS
from services.models import Entry, Event, Member
from wiring.extensions import db


def entry_of(event: Event, member: Member) -> Entry | None:
    """The member's entry in this event, if any."""
    return db.session.scalar(db.select(Entry).where(Entry.event_id == event.id, Entry.member_id == member.id))


def bonus_values(event: Event) -> dict[str, int] | None:
    """The chip values of this event type's bonuses as the night was created with them (its settings
    snapshot), else the league's (None: the defaults)."""
    if event.settings and "bonuses" in event.settings:
        return event.settings["bonuses"]
    return (event.league.settings or {}).get(event.event_type, {}).get("bonuses")


def starting_stack(event: Event) -> int:
    """The event type's starting stack (R-CHIP-1; a league setting). A final's default is R-FIN's for
    the league's kind (a free league's Monthly Final starts at 6,000, a cash league's at 10,000); a
    player whose own stack differs (the High-roller Final's) has it on their entry (stack_of)."""
    default = (finals.final_spec(event.event_type, event.league.kind).starting_stack
               if event_type(event.event_type).is_final
               else chips.DEFAULT_STARTING_STACKS.get(event.event_type, 10_000))
    if event.settings and "starting_stack" in event.settings:  # the night's snapshot (league.settings)
        return event.settings["starting_stack"]
    return (event.league.settings or {}).get(event.event_type, {}).get("starting_stack", default)


def stack_of(event: Event, entry, default: int | None = None) -> int:
    """R-CHIP-3, R-FIN: the starting stack this entry (a model or an entries_of row) put in play."""
    if entry.starting_stack is not None:
        return entry.starting_stack
    return starting_stack(event) if default is None else default


def live_game_elsewhere(member: Member, event: Event) -> Event | None:
    """R-LATE-4: another unfinished event the member is still in."""
    return db.session.scalar(db.select(Event).join(Entry).where(
        Entry.member_id == member.id, Entry.status.in_(LIVE), Event.id != event.id,
        Event.status.in_(OPEN_EVENTS)).limit(1))
