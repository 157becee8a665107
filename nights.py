"""The host's night in the database: check-in, arrivals, walk-ins, bust-outs, disqualifications.

league/ decides; this module reads and writes models through a Journal, so each host action is
one transaction that can be taken back. Callers commit and publish.
"""
from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass

from flask import current_app
from sqlalchemy import func

import clocks
import records
from extensions import db
from journal import Journal
from league import chips, clock, night, payouts, seating
from league.members import clean_name, name_key, name_problem
from league.points import PARTICIPANT_STATUSES
from models import BonusClaim, Entry, Event, Member, Ruling, Ticket, utcnow

LIVE = ("pending", "playing")  # R-LATE-4: in a game until they are out
OPEN_EVENTS = ("scheduled", "running")
# A player's own pre-registration for a night with a buy-in waits in this status until the host
# confirms the buy-in was paid (confirm) or turns it away (reject). It is nowhere in the game: not
# live for R-LATE-4, no stack in play (R-CHIP-3), not among the players left.
REQUESTED = "requested"
PRE_REGISTERED = ("registered", REQUESTED)  # not arrived yet: they may still check in or cancel
STILL_IN = ("playing", "registered")  # a pre-registered player's stack is in play (R-LATE-3)
STACK_IN_PLAY = STILL_IN + PARTICIPANT_STATUSES  # R-CHIP-3: busted players' chips stay in play
FIELD = ("playing",) + PARTICIPANT_STATUSES  # R-PTS-5: who took a seat, still in or not


class Refused(ValueError):
    """A rule said no; the message is for the person who asked."""


def event_for_check_in(code: str) -> Event | None:
    """R-MEM-1: the event a check-in link belongs to, while it can still take entries."""
    event = db.session.scalar(db.select(Event).where(Event.check_in_code == code))
    return event if event is not None and event.status in OPEN_EVENTS else None


def clock_view(event: Event) -> clock.ClockView:
    """The event's clock now."""
    return clock.view(clocks.structure_of(event), clocks.state_of(event), clocks.now_ms())


def entry_of(event: Event, member: Member) -> Entry | None:
    """The member's entry in this event, if any."""
    return db.session.scalar(db.select(Entry).where(Entry.event_id == event.id, Entry.member_id == member.id))


def live_game_elsewhere(member: Member, event: Event) -> Event | None:
    """R-LATE-4: another unfinished event the member is still in."""
    return db.session.scalar(db.select(Event).join(Entry).where(
        Entry.member_id == member.id, Entry.status.in_(LIVE), Event.id != event.id,
        Event.status.in_(OPEN_EVENTS)).limit(1))


def find_member(league_id: int, name: str) -> Member | None:
    """The member of that name (any spacing or case)."""
    return db.session.scalar(db.select(Member).where(Member.league_id == league_id,
                                                     Member.name_key == name_key(name)))


def join(league_id: int, name: str, adult: bool, under_21: bool, contact: str = "") -> Member:
    """R-MEM-1: a new member: free, 18 or over (they confirm it), photo ID to be checked if under 21.

    An existing name is refused: taking it would hand this phone someone else's card.
    """
    problem = name_problem(name)
    if problem:
        raise Refused(problem[0].upper() + problem[1:] + ".")
    if not adult:
        raise Refused("Members must be 18 or over: tick the box to confirm you are.")
    if find_member(league_id, name):
        raise Refused(f"A member called {clean_name(name)} already exists. If that's you, ask the host "
                      "to check you in, or open your member card on your own phone.")
    member = Member.named(league_id, name)
    member.contact = clean_name(contact)[:120] or None
    member.under_21 = under_21
    member.adult_confirmed_at = utcnow()
    db.session.add(member)
    db.session.flush()
    return member


def check_in(event: Event, member: Member, journal: Journal | None = None, *, by_host: bool = False,
             override_reason: str = "", user_id: int | None = None) -> Entry:
    """R-MEM-1, R-LATE-1/3/4: a member arrives. On their own phone the entry waits for the host to
    confirm (pending); the host's own check-in seats them at once. Closed once the major break
    has started, unless the host overrides with a reason (recorded as a ruling)."""
    entry = entry_of(event, member)
    if entry is not None and entry.status not in PRE_REGISTERED:
        if entry.status in LIVE:
            return entry  # a second tap or a second scan: already in
        raise Refused(f"{member.name} has already played in this game.")
    elsewhere = live_game_elsewhere(member, event)
    if elsewhere is not None:
        raise Refused(f"{member.name} is still in the game at {elsewhere.venue.name}: one game at a time.")
    if not clock_view(event).registration_open:
        if not (by_host and override_reason.strip()):
            raise Refused("Check-in is closed: the major break has started. The host can let you in "
                          "with a reason.")
        db.session.add(Ruling(league_id=event.league_id, event_id=event.id, user_id=user_id,
                              kind="late_entry_override", rule_id="R-LATE-1", reason=override_reason.strip()[:500],
                              detail={"member": member.name}))
    status = "playing" if by_host else "pending"
    if entry is None:
        entry = Entry(event_id=event.id, member_id=member.id, status=status, arrived_at=utcnow())
        db.session.add(entry)
        db.session.flush()
        if journal:
            journal.created(entry)
    else:  # a pre-registered player arriving (R-LATE-3), or one whose unpaid request becomes an arrival
        if journal:
            journal.touch(entry)
        entry.status, entry.arrived_at = status, utcnow()
    if by_host and journal:
        db.session.flush()
        seat_late_arrival(event, entry, journal)
    return entry


def confirm(entry: Entry, journal: Journal) -> None:
    """The host confirms an arrival: the player is in the game. R-LATE-3: confirming a player's own
    pre-registration request (a night with a buy-in) says the buy-in is paid: their stack goes in
    play from the start, and they check in when they arrive."""
    if entry.status == REQUESTED:
        journal.touch(entry)
        entry.status, entry.pre_registered = "registered", True
        return
    if entry.status != "pending":
        raise Refused(f"{entry.member.name} is not waiting to be confirmed.")
    journal.touch(entry).status = "playing"
    seat_late_arrival(entry.event, entry, journal)


def reject(entry: Entry, journal: Journal) -> None:
    """The host turns an arrival away (not a member here, a prank scan…), or a pre-registration
    request whose buy-in was never paid (R-LATE-3): the entry goes."""
    if entry.status not in ("pending", REQUESTED):
        raise Refused(f"{entry.member.name} is not waiting to be confirmed.")
    _drop_entry(entry, journal)


def id_checked(member: Member, journal: Journal) -> None:
    """R-MEM-1: the host saw photo ID for a member under 21."""
    journal.touch(member).id_checked_at = utcnow()


def entries_of(event: Event) -> list:
    """Every entry of the event in id order, as plain rows of what the clock's counts and seat digest
    read (id, status, table, seat, position, chips removed): one read, and no 200 objects built on
    the path of every host action and every stream message."""
    return list(db.session.execute(db.select(Entry.id, Entry.status, Entry.table_no, Entry.seat_no, Entry.position,
                                             Entry.chips_removed).where(Entry.event_id == event.id).order_by(Entry.id)))


def players_left(event: Event, entries: list | None = None) -> int:
    """Players still in (R-PTS-5 counts them for the next bust-out's position)."""
    if entries is not None:
        return sum(1 for e in entries if e.status in STILL_IN)
    return db.session.scalar(db.select(func.count()).select_from(Entry).where(
        Entry.event_id == event.id, Entry.status.in_(STILL_IN)))


def bust(event: Event, stacks: dict[Entry, int | None], journal: Journal) -> dict[Entry, int]:
    """R-PTS-5/6: players out in one hand take the worst positions still open; several are ordered
    by their stacks at the start of the hand (larger higher; equal share)."""
    if not stacks:
        raise Refused("Tap the players who are out.")
    left = players_left(event)
    for entry in stacks:
        if entry.event_id != event.id or entry.status != "playing":
            raise Refused(f"{entry.member.name} is not in the game.")
    if len(stacks) >= left:
        raise Refused("Someone has to win: leave at least one player in.")
    if len(stacks) > 1 and any(chips is None or chips < 0 for chips in stacks.values()):
        raise Refused("Several out in one hand: give each one's chips at the start of the hand.")
    positions = night.bust_positions(left, {e: (c or 0) for e, c in stacks.items()})
    hand = (db.session.scalar(db.select(func.max(Entry.bust_hand)).where(Entry.event_id == event.id)) or 0) + 1
    for entry, position in positions.items():
        journal.touch(entry)
        entry.status, entry.position, entry.bust_hand = "played", position, hand
        entry.stack_at_bust = stacks[entry]
    return positions


def disqualify(event: Event, entry: Entry, reason: str, journal: Journal, user_id: int | None,
               chips: int | None = None) -> int:
    """R-PTS-5, R-MEM-2, R-CHIP-3: a disqualified player takes the worst open position, earns 0
    points and no prize, and their chips leave play: the stack the host counted, or, uncounted, the
    average stack; the ruling is recorded with its reason."""
    if entry.status != "playing":
        raise Refused(f"{entry.member.name} is not in the game.")
    if not reason.strip():
        raise Refused("Give the reason for the disqualification.")
    if chips is not None and chips < 0:
        raise Refused("The chips they had can't be negative.")
    left = night.dq_position(players_left(event))
    removed = chips if chips is not None else chip_count(event)[1] or 0
    journal.touch(entry)
    entry.status, entry.position = "dq", left
    entry.chips_removed += removed
    db.session.add(Ruling(league_id=event.league_id, event_id=event.id, user_id=user_id, kind="disqualification",
                          rule_id="R-PTS-5", reason=reason.strip()[:500], detail={"member": entry.member.name}))
    return left


# --- seats (R-SEAT) --------------------------------------------------------------------------

def rng() -> random.Random:
    """The seat draw's randomness: the system's, unless a test fixes the seed."""
    seed = current_app.config.get("SEAT_RNG_SEED")
    return random.Random(seed) if seed is not None else random.SystemRandom()


def seated(event: Event, entries: list[Entry] | None = None) -> dict[Entry, seating.Seat]:
    """The players in the game who have a seat, and their seats (from the night's `entries` when given)."""
    if entries is not None:
        return {e: seating.Seat(e.table_no, e.seat_no) for e in entries
                if e.status == "playing" and e.table_no is not None}
    return {e: seating.Seat(e.table_no, e.seat_no) for e in db.session.scalars(db.select(Entry).where(
        Entry.event_id == event.id, Entry.status == "playing", Entry.table_no.is_not(None)))}


def _seat(entries: dict[Entry, seating.Seat], journal: Journal) -> None:
    for entry, seat in entries.items():
        if (entry.table_no, entry.seat_no) != (seat.table, seat.seat):
            journal.touch(entry)
            entry.table_no, entry.seat_no = seat.table, seat.seat


def draw(event: Event, journal: Journal) -> None:
    """R-SEAT-1: draw every player in the game a random seat; table sizes differ by at most one."""
    players = db.session.scalars(db.select(Entry).where(Entry.event_id == event.id, Entry.status == "playing")).all()
    if not players:
        raise Refused("Nobody is in the game yet.")
    if seated(event):
        raise Refused("Seats are already drawn: late arrivals get theirs when you confirm them.")
    _seat(seating.draw_seats(players, rng(), event.max_seats), journal)


def seat_late_arrival(event: Event, entry: Entry, journal: Journal) -> None:
    """R-LATE-2, R-SEAT-1: once seats are drawn, an arrival draws from the same pool."""
    current = seated(event)
    if current and entry.table_no is None:
        _seat({entry: seating.seat_late_entrant(current, entry, rng(), event.max_seats)}, journal)


def table_plan(event: Event, entries: list[Entry] | None = None) -> dict:
    """What the tables need now: a table to break (R-SEAT-3), the final-table redraw (R-SEAT-4),
    or balancing moves (R-SEAT-2), with the players at each table for the map."""
    current = seated(event, entries)
    tables: dict[int, list[tuple[int, Entry]]] = {}
    for entry, seat in current.items():
        tables.setdefault(seat.table, []).append((seat.seat, entry))
    return {
        "tables": {t: sorted(rows, key=lambda r: r[0]) for t, rows in sorted(tables.items())},
        "break": seating.table_to_break(current, event.max_seats) if current else None,
        "final": seating.final_table_due(current, event.max_seats) if current else False,
        "moves": seating.balance_proposals(current, event.max_seats) if current else [],
    }


def break_table(event: Event, journal: Journal) -> int:
    """R-SEAT-3: break the table that is due; its players draw new seats (table, then seat)."""
    current = seated(event)
    table = seating.table_to_break(current, event.max_seats)
    if table is None:
        raise Refused("No table needs breaking.")
    _seat(seating.break_table(current, table, rng(), event.max_seats), journal)
    return table


def final_table(event: Event, journal: Journal) -> None:
    """R-SEAT-4: everyone fits at one table: a fresh random draw to the final table."""
    current = seated(event)
    if not seating.final_table_due(current, event.max_seats):
        raise Refused("It isn't time for the final table yet.")
    remove_absentees(event, journal)
    _seat(seating.final_table(list(current), rng(), event.max_seats), journal)


def move(event: Event, entry: Entry, table: int, seat: int, journal: Journal) -> None:
    """R-SEAT-2: carry out a balancing move to an empty seat."""
    current = seated(event)
    try:
        new = seating.apply_move(current, entry, table, seat, event.max_seats)
    except ValueError as problem:
        raise Refused(str(problem)) from None
    _seat(new, journal)


# --- bonus chips (R-CHIP) ----------------------------------------------------------------------

def bonus_values(event: Event) -> dict[str, int] | None:
    """The league's chip values for this event type's bonuses (None: the defaults)."""
    return (event.league.settings or {}).get(event.event_type, {}).get("bonuses")


def claim_bonus(event: Event, entry: Entry, kind: str, journal: Journal, *, override_reason: str = "",
                user_id: int | None = None) -> int:
    """R-CHIP-1..3: accept a bonus claim under the event type's kinds, values and windows; refuse
    with the reason, unless the host overrides with a reason (recorded as a ruling)."""
    if entry.event_id != event.id or entry.status not in ("playing", "registered", "pending"):
        raise Refused("That player is not in this game.")
    claimed = db.session.scalars(db.select(BonusClaim.kind).where(BonusClaim.entry_id == entry.id)).all()
    view = clock_view(event)
    try:
        decision = night.decide_bonus(kind, event.event_type, bonus_values(event), view if view.started else None,
                                      claimed)
    except ValueError as problem:  # not a bonus kind at all
        raise Refused(str(problem)) from None
    override = False
    if not decision.accepted:
        if not override_reason.strip():
            raise Refused(decision.reason)
        try:
            decision = night.override_bonus(kind, bonus_values(event) or chips.DEFAULT_BONUS_VALUES.get(
                event.event_type, {}))
        except ValueError as problem:
            raise Refused(str(problem)) from None
        override = True
        db.session.add(Ruling(league_id=event.league_id, event_id=event.id, user_id=user_id, kind="bonus_override",
                              rule_id="R-CHIP-2", reason=override_reason.strip()[:500],
                              detail={"member": entry.member.name, "kind": kind}))
    claim = BonusClaim(entry_id=entry.id, kind=kind, chips=decision.chips, override=override, user_id=user_id)
    db.session.add(claim)
    db.session.flush()
    journal.created(claim)
    return decision.chips


def bonus_chips(entry: Entry) -> int:
    """R-CHIP-3: the bonus chips accepted for one entry."""
    return db.session.scalar(db.select(func.coalesce(func.sum(BonusClaim.chips), 0)).where(
        BonusClaim.entry_id == entry.id)) or 0


def starting_stack(event: Event) -> int:
    """The event type's starting stack (R-CHIP-1; a league setting)."""
    return (event.league.settings or {}).get(event.event_type, {}).get(
        "starting_stack", chips.DEFAULT_STARTING_STACKS.get(event.event_type, 10_000))


def chip_count(event: Event, entries: list | None = None) -> tuple[int, int | None]:
    """R-CHIP-3: chips in play and the average stack."""
    entries = entries_of(event) if entries is None else entries
    in_play = [e for e in entries if e.status in STACK_IN_PLAY]
    bonuses = db.session.scalar(db.select(func.coalesce(func.sum(BonusClaim.chips), 0)).join(Entry).where(
        Entry.event_id == event.id, Entry.status.in_(STACK_IN_PLAY))) or 0
    removed = sum(e.chips_removed for e in in_play)
    left = players_left(event, entries)
    return night.chip_count(starting_stack(event), len(in_play), bonuses, removed, left)


# --- settling (R-PTS, R-QUAL, R-PAY) -----------------------------------------------------------

def settle(event: Event, journal: Journal) -> None:
    """Settle the night once one player remains: the winner takes 1st, pre-registered no-shows
    leave the field (R-LATE-3), points (R-PTS), prizes for cash nights (R-PAY-1), then the month's
    tickets are settled again in date order (R-QUAL-1/2). A correction re-settles."""
    entries = db.session.scalars(db.select(Entry).where(Entry.event_id == event.id)).all()
    playing = [e for e in entries if e.status == "playing"]
    dealt = event.deal_status == "agreed"
    if len(playing) != (0 if dealt else 1):
        raise Refused(f"{len(playing)} players are still in: settle when one remains.")
    if any(e.status in ("pending", REQUESTED) for e in entries):
        raise Refused("Confirm or turn away the arrivals and pre-registration requests still waiting first.")
    remove_absentees(event, journal)
    table = prize_table(event)
    journal.touch(event)
    for entry in entries:
        journal.touch(entry)
    if playing:
        playing[0].status, playing[0].position = "played", 1
    event.status, event.settled_at = "settled", utcnow()
    records.award_event_points(event)
    counted = [e for e in entries if e.status in PARTICIPANT_STATUSES]
    if table:
        prizes = night.prizes_for({e.id: e.position for e in counted}, {e.id: e.status for e in counted}, table)
        for entry in counted:
            if not (dealt and entry.chips_at_deal is not None):  # a deal's players keep their shares
                entry.prize = prizes.get(entry.id, 0)
    db.session.flush()
    before = {t.id: t for t in db.session.scalars(db.select(Ticket).where(
        Ticket.league_id == event.league_id, Ticket.month == event.month))}
    for ticket in before.values():
        journal.touch(ticket)
    after = records.settle_tickets(event.league, event.month)
    db.session.flush()
    for ticket in after:
        if ticket.id not in before:
            journal.created(ticket)


# --- deals (R-PTS-7, R-PAY-2) ------------------------------------------------------------------

def field(event: Event) -> list[Entry]:
    """Everyone who took a seat (R-PTS-5)."""
    return db.session.scalars(db.select(Entry).where(
        Entry.event_id == event.id, Entry.status.in_(FIELD))).all()


def prize_table(event: Event) -> list[int]:
    """R-PAY-1: the night's prizes by position (empty for a free night)."""
    if not event.buy_in:
        return []
    entrants = len(field(event))
    pool = payouts.prize_pool(entrants, event.pool_share, event.guarantee)
    return night.prize_table(entrants, pool, event.league.payout_percent)


def deal_players(event: Event) -> list[Entry]:
    """The players still in, who would share a deal."""
    return db.session.scalars(db.select(Entry).where(Entry.event_id == event.id, Entry.status == "playing")
                              .order_by(Entry.id)).all()


def deal_offer(event: Event) -> night.DealOffer | None:
    """R-PAY-2: chip-chop and ICM splits of the unpaid prizes at the counted stacks."""
    players = deal_players(event)
    counts = {e.id: e.chips_at_deal for e in players}
    if not players or any(c is None for c in counts.values()):
        return None
    return night.deal_offers(counts, prize_table(event)[:len(players)])


def open_deal(event: Event, counts: dict[Entry, int | None], method: str, journal: Journal) -> None:
    """R-PTS-7, R-PAY-2: the final table wants a deal: take the chip count now and put the split to
    an anonymous ballot on the remaining players' phones."""
    players = deal_players(event)
    if event.deal_status == "open":
        raise Refused("A deal is already on the ballot.")
    if method not in ("chip_chop", "icm"):
        raise Refused("Choose chip-chop or ICM.")
    if set(counts) != set(players) or any(c is None or c < 0 for c in counts.values()):
        raise Refused("Count every remaining player's chips.")
    if sum(counts.values()) <= 0:
        raise Refused("The chip counts add up to nothing.")
    try:
        night.deal_offers({e.id: c for e, c in counts.items()}, prize_table(event)[:len(players)])
    except ValueError as problem:
        raise Refused(str(problem)) from None
    journal.touch(event)
    event.deal_status, event.deal_method = "open", method
    for entry, chips_counted in counts.items():
        journal.touch(entry)
        entry.chips_at_deal, entry.deal_vote = chips_counted, None


def call_off_deal(event: Event, journal: Journal) -> None:
    """The host takes the deal off the ballot; play goes on."""
    if event.deal_status != "open":
        raise Refused("There is no deal on the ballot.")
    journal.touch(event).deal_status = "void"


def ballot(event: Event) -> tuple[int, int]:
    """(votes cast, players voting): the only thing anyone sees of the ballot (R-PAY-2: anonymous)."""
    players = deal_players(event)
    return sum(e.deal_vote is not None for e in players), len(players)


def vote(event: Event, entry: Entry, yes: bool) -> str:
    """R-PAY-2: one remaining player's secret vote. One "no" voids the deal and play resumes; when
    everyone has said yes the deal stands: the chip count fixes the points positions (R-PTS-7) and
    each player's prize is their share of the split."""
    if event.deal_status != "open" or entry.status != "playing" or entry.event_id != event.id:
        raise Refused("There is no deal for you to vote on.")
    if entry.deal_vote is not None:
        raise Refused("You have already voted.")
    entry.deal_vote = yes
    players = deal_players(event)
    result = night.ballot_result({e.id: e.deal_vote for e in players}, [e.id for e in players])
    if result == "void":
        event.deal_status = "void"
    elif result == "agreed":
        offer = deal_offer(event)
        shares = offer.icm if event.deal_method == "icm" else offer.chip_chop
        positions = night.deal_positions({e.id: e.chips_at_deal for e in players}, len(players))
        for player in players:
            player.status, player.position, player.prize = "played", positions[player.id], shares[player.id]
        event.deal_status = "agreed"
    return result


# --- pre-registration (R-LATE-3) ----------------------------------------------------------------

def pre_register(event: Event, member: Member, journal: Journal) -> Entry:
    """R-LATE-3: a player pre-registers with the full buy-in: their stack is in play from the start."""
    if entry_of(event, member) is not None:
        raise Refused(f"{member.name} is already in this game.")
    if event.status not in OPEN_EVENTS:
        raise Refused("This game is over.")
    entry = Entry(event_id=event.id, member_id=member.id, status="registered", pre_registered=True)
    db.session.add(entry)
    db.session.flush()
    journal.created(entry)
    return entry


def self_pre_registration_problem(event: Event, member: Member) -> str | None:
    """R-LATE-3/4: why the member can't pre-register themselves for the event now, said to them
    (None: they can). Age (R-MEM-1) is checked when they tap: they may confirm it then."""
    if member.league_id != event.league_id:
        return "This night is in another league: your member card can't enter it."
    if event.status not in OPEN_EVENTS:
        return "This game is over."
    entry = entry_of(event, member)
    if entry is not None:
        if entry.status == REQUESTED:
            return "You have already asked to pre-register: the host confirms you once your buy-in is paid."
        if entry.status == "registered":
            return "You are already pre-registered for this game."
        return "You are already in this game."
    if clock_view(event).started:
        return "Play has started, so pre-registration is closed: just check in at the venue with the host's QR code."
    elsewhere = live_game_elsewhere(member, event)
    if elsewhere is not None and elsewhere.date == event.date:  # tonight's game doesn't stop next week's
        return f"You are still in the game at {elsewhere.venue.name}: one game at a time."
    return None


def self_pre_register(event: Event, member: Member, journal: Journal, *, adult: bool = False) -> Entry:
    """R-LATE-3, R-LATE-4, R-MEM-1: a player pre-registers themselves from their phone, before play
    starts. A free night: their stack is in play at once (as the host's pre_register). A night with a
    buy-in: the entry waits as a request until the host confirms the full buy-in was paid (confirm),
    so no stack is in play on the player's word alone. A member who never confirmed they are 18 or
    over must confirm it now (`adult`), as joining asks; the confirmation is recorded."""
    problem = self_pre_registration_problem(event, member)
    if problem:
        raise Refused(problem)
    if member.adult_confirmed_at is None:
        if not adult:
            raise Refused("Members must be 18 or over: tick the box to confirm you are.")
        journal.touch(member).adult_confirmed_at = utcnow()
    cash = event.buy_in > 0
    entry = Entry(event_id=event.id, member_id=member.id, status=REQUESTED if cash else "registered",
                  pre_registered=not cash)
    db.session.add(entry)
    db.session.flush()
    journal.created(entry)
    return entry


def own_pre_registration(event: Event, member: Member) -> Entry | None:
    """R-LATE-3: the member's pre-registration (or request) that they may still cancel themselves:
    the game is open, play has not started, and they have not arrived."""
    entry = entry_of(event, member)
    if entry is None or entry.status not in PRE_REGISTERED or entry.arrived_at is not None:
        return None
    if event.status not in OPEN_EVENTS or clock_view(event).started:
        return None
    return entry


def cancel_pre_registration(event: Event, member: Member, journal: Journal) -> Entry:
    """R-LATE-3: a player takes back their own pre-registration (or request) before play starts;
    their stack leaves play. Once play has started the stack stays in until the final table
    removes it (the host can still act). Only their own: the entry is found from the member."""
    entry = entry_of(event, member)
    if entry is None or entry.status not in PRE_REGISTERED or entry.arrived_at is not None:
        raise Refused("You have no pre-registration to cancel in this game.")
    if event.status not in OPEN_EVENTS:
        raise Refused("This game is over.")
    if clock_view(event).started:
        raise Refused("Play has started: your stack is in play. Tell the host if you can't come.")
    _drop_entry(entry, journal)
    return entry


def _drop_entry(entry: Entry, journal: Journal) -> None:
    # Bonus claims go first and are noted first: the database would delete them with the entry
    # behind the journal's back, and Undo restores in reverse, so the entry comes back before them.
    for claim in db.session.scalars(db.select(BonusClaim).where(BonusClaim.entry_id == entry.id)):
        journal.touch(claim)
        db.session.delete(claim)
    journal.touch(entry)
    db.session.delete(entry)


def missed_blinds(event: Event, entry: Entry) -> tuple[int, str] | None:
    """R-LATE-3: the deduction proposed for a pre-registered player who arrived after play began
    (None when there is nothing to propose or it was already taken)."""
    if not entry.pre_registered or entry.arrived_at is None or entry.chips_removed or entry.status != "playing":
        return None
    view = clock_view(event)
    if not view.started:
        return None
    amount, text = night.missed_blinds_proposal(clocks.structure_of(event), view)
    return (amount, text) if amount else None


def deduct(entry: Entry, amount: int, journal: Journal) -> None:
    """R-LATE-3: the host confirms (or edits) the missed-blinds deduction; the chips leave play."""
    if amount < 0:
        raise Refused("The deduction can't be negative.")
    journal.touch(entry).chips_removed = amount


def remove_absentees(event: Event, journal: Journal) -> int:
    """R-LATE-3: when the final table forms, pre-registered players who never arrived are removed:
    no points, no place in the field, their chips out of play; everyone already out moves up."""
    absent = db.session.scalars(db.select(Entry).where(Entry.event_id == event.id,
                                                       Entry.status == "registered")).all()
    if not absent:
        return 0
    for entry in absent:
        journal.touch(entry)
        entry.status, entry.position = "no_show", None
        entry.chips_removed = starting_stack(event) + bonus_chips(entry)
    for entry in db.session.scalars(db.select(Entry).where(Entry.event_id == event.id,
                                                            Entry.status.in_(PARTICIPANT_STATUSES))):
        journal.touch(entry)
        entry.position -= len(absent)
    return len(absent)


# --- the player's phone: their seat, and telling them when it changes (R-SEAT) -------------------

SEAT_BUCKETS = 64  # entries hash into buckets by id: a phone compares its own bucket only
SEAT_HASH_CHARS = 3  # per bucket: a change goes unseen (until the 60 s fallback) once in 4,096
UNSEATED = "unseated"  # seat_token for a phone that shows no seat (waiting, not drawn yet, out)
_SEAT_ROWS = db.select(Entry.id, Entry.status, Entry.table_no, Entry.seat_no, Entry.position)


def _seat_prefix(event: Event) -> str:
    # The event's status and deal state go into every bucket: they change what every phone shows
    # (the points once settled, "Vote on the deal"), and only a few times a night.
    return f"{event.status},{event.deal_status};"


def _bucket_hash(prefix: str, rows) -> str:
    # One string hashed per bucket, not one update per row: a quarter of the time at 200 entries.
    text = prefix + "".join(f"{id_},{status},{table},{seat},{position};" for id_, status, table, seat, position in rows)
    return hashlib.blake2b(text.encode(), digest_size=2).hexdigest()[:SEAT_HASH_CHARS]


def seat_digest(event: Event, entries: list | None = None) -> str:
    """R-SEAT-1..4, R-PTS-5: every entry's status, table, seat and position as SEAT_BUCKETS hashes
    of SEAT_HASH_CHARS hex digits (bucket = entry id % SEAT_BUCKETS), for the clock payload. A phone refetches
    its own entry only when its bucket changes: a bust-out changes one bucket, a table break at
    most as many as players moved. One query, or none given the event's `entries` in id order."""
    rows = db.session.execute(_SEAT_ROWS.where(Entry.event_id == event.id).order_by(Entry.id)) if entries is None \
        else ((e.id, e.status, e.table_no, e.seat_no, e.position) for e in entries)
    buckets: list[list] = [[] for _ in range(SEAT_BUCKETS)]
    for row in rows:
        buckets[row[0] % SEAT_BUCKETS].append(row)
    prefix = _seat_prefix(event)
    return "".join(_bucket_hash(prefix, rows) for rows in buckets)


def seat_bucket(entry: Entry) -> tuple[int, str]:
    """R-SEAT-1..4: (index, hash) of the entry's bucket, as seat_digest gives it: what its phone
    compares with each new digest."""
    index = entry.id % SEAT_BUCKETS
    rows = db.session.execute(_SEAT_ROWS.where(Entry.event_id == entry.event_id,
                                               Entry.id % SEAT_BUCKETS == index).order_by(Entry.id))
    return index, _bucket_hash(_seat_prefix(entry.event), rows)


@dataclass(frozen=True)
class SeatNotice:
    """R-SEAT-1..4: what a player's phone announces: `kind` is "drawn" (their first seat), "moved"
    (a balancing move or a broken table) or "final" (the final table redraw); then the seat to go to."""
    kind: str
    table: int
    seat: int


def seat_token(entry: Entry) -> str:
    """R-SEAT-1..4: the seat a phone shows, as it sends it back (`was`): "table-seat", or UNSEATED."""
    if entry.status == "playing" and entry.table_no is not None and entry.seat_no is not None:
        return f"{entry.table_no}-{entry.seat_no}"
    return UNSEATED


def seat_notice(entry: Entry, was: str | None) -> SeatNotice | None:
    """R-SEAT-1..4: what to tell a player whose phone last showed `was` (a seat_token): their first
    seat (R-SEAT-1 draw, a late arrival's seat), a move (R-SEAT-2 balancing, R-SEAT-3 a broken
    table) or the final table (R-SEAT-4, everyone left at one table). None when the seat is the
    same, the player has no seat (waiting, or out: the phone shows where they finished), or `was`
    is missing or not a seat token (ignored, never an error)."""
    now = seat_token(entry)
    if not was or now == UNSEATED or was == now:
        return None
    if was == UNSEATED:
        return SeatNotice("drawn", entry.table_no, entry.seat_no)
    table, dash, seat = was.partition("-")
    if not (dash and len(was) <= 9 and table.isascii() and table.isdigit() and seat.isascii() and seat.isdigit()):
        return None
    if (int(table), int(seat)) == (entry.table_no, entry.seat_no):
        return None
    tables = db.session.scalar(db.select(func.count(func.distinct(Entry.table_no))).where(
        Entry.event_id == entry.event_id, Entry.status == "playing", Entry.table_no.is_not(None)))
    return SeatNotice("final" if tables == 1 else "moved", entry.table_no, entry.seat_no)
