"""Deals at the final table in the database (R-PTS-7, R-PAY-2): the offer, the anonymous ballot, the
result."""
from __future__ import annotations

from league import deals
from league.events import EVENT_TYPES
from league.statuses import DealMethod, DealStatus, EntryStatus, RulingKind
from services import MAX_REASON_LENGTH, Overridable, Refused, settling, typed_text
from services.journal import Journal
from services.models import Entry, Event, Ruling
from services.night_snapshot import NightSnapshot, read_night
from services.places import place
from wiring.extensions import db


def deal_offer(night: NightSnapshot) -> deals.DealOffer | None:
    """R-PAY-2: chip-chop and ICM splits of the unpaid prizes at the counted stacks."""
    players = night.deal_players
    counts = {e.id: e.chips_at_deal for e in players}
    if not players or any(c is None for c in counts.values()):
        return None
    return deals.deal_offers(counts, night.prizes[:len(players)])


def points_decided(night: NightSnapshot, players: list[Entry]) -> dict[int, tuple[int, int]]:
    """R-PTS-7: on a night without prizes, what a deal of `players` decides: each one's (position,
    points) by entry id from the chip count. Empty on a night with prizes (the split says what the
    deal decides), or when a count is missing."""
    counts = {e.id: e.chips_at_deal for e in players}
    if night.prizes or not counts or any(c is None for c in counts.values()):
        return {}
    event = night.event
    return deals.deal_points(counts, len(night.entrants), high_roller=EVENT_TYPES[event.event_type].high_roller,
                             awards_points=settling.awards_points(event))


def open_deal(night: NightSnapshot, counts: dict[Entry, int | None], method: str, journal: Journal, *,
              difference_reason: str = "", user_id: int | None = None) -> None:
    """R-PTS-7, R-PAY-2: the final table wants a deal: take the chip count now and put the split to
    an anonymous ballot on the remaining players' phones. R-CHIP-3: the count adds up to the chips in
    play, or the host gives the reason for the difference (`difference_reason`, recorded as a ruling
    by `user_id`, R-MEM-2); without one it is refused, overridably."""
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
    in_play, _ = night.chip_count()
    if (problem := deals.count_problem(sum(counts.values()), in_play)) is not None:
        if not difference_reason.strip():
            raise Overridable(problem)
        reason = typed_text(difference_reason, MAX_REASON_LENGTH, "the reason")
        # Append-only (R-MEM-2): an Undo of the deal leaves the ruling on the record, as a bonus override's.
        db.session.add(Ruling(league_id=event.league_id, event_id=event.id, user_id=user_id,
                              kind=RulingKind.DEAL_COUNT, rule_id="R-CHIP-3", reason=reason,
                              detail={"counted": sum(counts.values()), "in_play": in_play,
                                      "counts": {e.member.name: c for e, c in counts.items()}}))
    journal.touch(event)
    event.deal_status, event.deal_method = DealStatus.OPEN, method
    for entry, chips_counted in counts.items():
        journal.touch(entry)
        entry.chips_at_deal, entry.deal_vote, entry.deal_vote_handed = chips_counted, None, False


def call_off_deal(event: Event, journal: Journal) -> None:
    """The host takes the deal off the ballot; play goes on."""
    if event.deal_status != DealStatus.OPEN:
        raise Refused("There is no deal on the ballot.")
    journal.touch(event).deal_status = DealStatus.VOID


def ballot(night: NightSnapshot) -> tuple[int, int]:
    """(votes cast, players voting): the only thing anyone sees of the ballot (R-PAY-2: anonymous)."""
    players = night.deal_players
    return sum(e.deal_vote is not None for e in players), len(players)


def vote(event: Event, entry: Entry, yes: bool, journal: Journal, *, handed: bool = False) -> str:
    """R-PAY-2: one remaining player's secret vote. One "no" voids the deal and play resumes; when
    everyone has said yes the deal stands: the chip count fixes the points positions (R-PTS-7,
    placed with the rest by services.places) and each player's prize is their share of the split.

    The journal notes what an agreed deal changes, the last vote included, so the caller records
    it only when the result is "agreed" (then Undo reopens the ballot); an open or void ballot is
    never journalled, so no action says who voted what.

    `handed`: cast on the host's phone handed to the player (pass the phone), which is only for a
    player without a phone of their own in tonight's game: each player's own vote is theirs, the host
    cannot cast it (nor agree a deal alone). Recorded as such; a vote on the player's own phone marks
    them as having one."""
    if event.deal_status != DealStatus.OPEN or entry.status != EntryStatus.PLAYING or entry.event_id != event.id:
        raise Refused("There is no deal for you to vote on.")
    if entry.deal_vote is not None:
        raise Refused("You have already voted.")
    if handed and entry.own_phone:
        raise Refused(own_phone_refusal(entry))
    journal.touch(entry).deal_vote = yes
    entry.deal_vote_handed, entry.own_phone = handed, entry.own_phone or not handed
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


def own_phone_refusal(entry: Entry) -> str:
    """R-PAY-2: why the host's phone is not handed to this player."""
    return f"{entry.member.name} has a phone of their own in tonight's game: they vote on it, not on the host's."


def cast(event: Event, entry: Entry, yes: bool, *, handed: bool = False) -> str:
    """R-PAY-2: a player's vote, from their own phone or the host's passed to them: `vote`, and
    the vote that agrees the deal journalled (no user: the players agreed it) so the host can undo
    it. The caller holds the event's lock, so the last "yes" sees every other vote."""
    log = Journal(event, None, "deal_agreed", "Deal agreed by every player left")
    result = vote(event, entry, yes, log, handed=handed)
    if result == DealStatus.AGREED:
        log.record()
    return result
