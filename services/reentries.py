"""Re-entries and rebuys in the database (R-ENTRY-1..2, R-LATE-2).

A player buys back in on their own entry (`Entry.buy_ins` counts the stacks they bought), never on a
second one: the field for points and paid places counts players (one entry each), their one
finishing position comes from their last entry, and standings count the night once (R-STD-1). A
re-entry takes back the bust-out (its `bust_hand`), so services.places derives every position as if
that bust had not happened; the pool and chips in play count every buy-in (services.field)."""
from __future__ import annotations

from league import reentry
from league.statuses import DealStatus, EntryStatus, EventStatus, ReentryMode
from services import Refused
from services.clocks import clock_view
from services.field import live_game_elsewhere
from services.journal import Journal
from services.models import Entry, Event
from services.night_snapshot import NightSnapshot
from services.places import place
from services.seats import seat_late_arrival
from wiring.extensions import db


def rule_of(event: Event) -> reentry.ReentryRule:
    """R-ENTRY-1: the night's re-entry setting, from its own settings snapshot (Event.reentry)."""
    return event.reentry


def problem(event: Event, entry: Entry, wanted: ReentryMode) -> str | None:
    """R-ENTRY-1: why the player may not re-enter (or rebuy) now, in the host's words; None: they may."""
    if event.status == EventStatus.SETTLED:
        return "The night is settled."
    if event.deal_status == DealStatus.AGREED:
        return "The final table has agreed a deal: nobody can buy back in."
    rule = rule_of(event)
    view = clock_view(event)
    return reentry.refusal(rule, wanted, name=entry.member.name, status=entry.status,
                           busted=entry.bust_hand is not None, buy_ins=entry.buy_ins,
                           period=reentry.period_open(rule, play_elapsed_ms=view.play_elapsed_ms,
                                                      registration_open=view.registration_open))


def re_enter(night: NightSnapshot, entry: Entry, journal: Journal) -> Entry:
    """R-ENTRY-1/2, R-LATE-2: a busted player buys a new full stack: back in the game on a new random
    seat from the same pool as a late entrant, their bust-out taken out of the elimination order, one
    more buy-in in the pool and one more stack in play. Refused, nothing written, when the game
    allows none, the limit is reached, the period is over or the player has not busted."""
    event = night.event
    if (why := problem(event, entry, ReentryMode.REENTRY)) is not None:
        raise Refused(why)
    elsewhere = live_game_elsewhere(entry.member, event)
    if elsewhere is not None:  # R-LATE-4
        raise Refused(f"{entry.member.name} is still in a game at {elsewhere.venue.name}.")
    journal.touch(entry)
    entry.status, entry.bust_hand, entry.stack_at_bust = EntryStatus.PLAYING, None, None
    entry.hfh_hand = None
    entry.table_no = entry.seat_no = entry.penalty_until = None
    entry.buy_ins += 1
    db.session.flush()
    seat_late_arrival(night, entry, journal)
    place(night, journal)
    return entry


def rebuy(event: Event, entry: Entry, journal: Journal) -> Entry:
    """R-ENTRY-1/2: a player who has lost every chip rebuys at once, keeping their seat: one more
    buy-in in the pool and one more stack in play. Refused, nothing written, as re_enter is (and for
    a player already recorded out)."""
    if (why := problem(event, entry, ReentryMode.REBUY)) is not None:
        raise Refused(why)
    journal.touch(entry).buy_ins += 1
    return entry
