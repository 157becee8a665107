"""Deals at the final table in the database (R-PTS-7, R-PAY-2): the offer, the anonymous ballot, the
result."""
from __future__ import annotations

from league import deals
from league.statuses import DealMethod, DealStatus, EntryStatus
from services import Refused
from services.journal import Journal
from services.models import Entry, Event
from services.night_snapshot import NightSnapshot, read_night
from services.places import place


def deal_offer(night: NightSnapshot) -> deals.DealOffer | None:
    """R-PAY-2: chip-chop and ICM splits of the unpaid prizes at the counted stacks."""
    players = night.deal_players
    counts = {e.id: e.chips_at_deal for e in players}
    if not players or any(c is None for c in counts.values()):
        return None
    return deals.deal_offers(counts, night.prizes[:len(players)])


def open_deal(night: NightSnapshot, counts: dict[Entry, int | None], method: str, journal: Journal) -> None:
    """R-PTS-7, R-PAY-2: the final table wants a deal: take the chip count now and put the split to
    an anonymous ballot on the remaining players' phones."""
    event = night.event
    players = night.deal_players
    if event.deal_status == DealStatus.OPEN:
        raise Refused("A deal is already on the ballot.")
    if method not in (DealMethod.CHIP_CHOP, DealMethod.ICM):
        raise Refused("Choose chip-chop or ICM.")
    if set(counts) != set(players) or any(c is None or c < 0 for c in counts.values()):
        raise Refused("Count every remaining player's chips.")
    if sum(counts.values()) <= 0:
        raise Refused("The chip counts add up to nothing.")
    try:
        deals.deal_offers({e.id: c for e, c in counts.items()}, night.prizes[:len(players)])
    except ValueError as problem:
        raise Refused(str(problem)) from None
    journal.touch(event)
    event.deal_status, event.deal_method = DealStatus.OPEN, method
    for entry, chips_counted in counts.items():
        journal.touch(entry)
        entry.chips_at_deal, entry.deal_vote = chips_counted, None


def call_off_deal(event: Event, journal: Journal) -> None:
    """The host takes the deal off the ballot; play goes on."""
    if event.deal_status != DealStatus.OPEN:
        raise Refused("There is no deal on the ballot.")
    journal.touch(event).deal_status = DealStatus.VOID


def ballot(night: NightSnapshot) -> tuple[int, int]:
    """(votes cast, players voting): the only thing anyone sees of the ballot (R-PAY-2: anonymous)."""
    players = night.deal_players
    return sum(e.deal_vote is not None for e in players), len(players)


def vote(event: Event, entry: Entry, yes: bool, journal: Journal) -> str:
    """R-PAY-2: one remaining player's secret vote. One "no" voids the deal and play resumes; when
    everyone has said yes the deal stands: the chip count fixes the points positions (R-PTS-7,
    placed with the rest by services.places) and each player's prize is their share of the split.

    The journal notes what an agreed deal changes, the last vote included, so the caller records
    it only when the result is "agreed" (then Undo reopens the ballot); an open or void ballot is
    never journalled, so no action says who voted what."""
    if event.deal_status != DealStatus.OPEN or entry.status != EntryStatus.PLAYING or entry.event_id != event.id:
        raise Refused("There is no deal for you to vote on.")
    if entry.deal_vote is not None:
        raise Refused("You have already voted.")
    journal.touch(entry).deal_vote = yes
    night = read_night(event)
    players = night.deal_players
    result = deals.ballot_result({e.id: e.deal_vote for e in players}, [e.id for e in players])
    if result == DealStatus.VOID:
        event.deal_status = DealStatus.VOID
    elif result == DealStatus.AGREED:
        offer = deal_offer(night)
        shares = offer.icm if event.deal_method == DealMethod.ICM else offer.chip_chop
        for player in players:
            journal.touch(player)
            player.status, player.prize = EntryStatus.PLAYED, shares[player.id]
        journal.touch(event).deal_status = DealStatus.AGREED
        place(night, journal)
    return result


def cast(event: Event, entry: Entry, yes: bool) -> str:
    """R-PAY-2: a player's vote, from their own phone or the host's passed to them: `vote`, and
    the vote that agrees the deal journalled (no user: the players agreed it) so the host can undo
    it. The caller holds the event's lock, so the last "yes" sees every other vote."""
    log = Journal(event, None, "deal_agreed", "Deal agreed by every player left")
    result = vote(event, entry, yes, log)
    if result == DealStatus.AGREED:
        log.record()
    return result
