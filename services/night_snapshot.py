"""The night read once (R-PTS-5..7, R-CHIP-1..3, R-PAY-1, R-SEAT-1..4, R-LATE-3): its entries with their
members, its bonus claims and its journal, and what the night's screens and actions derive from them.

The host's roster, the clock payload (every phone and the big screen) and a player's own entry read
a NightSnapshot, as the organiser's month reads its MonthPack (services/pack.py). The services that
change the night (bust-outs, seats, arrivals, settling) decide on one and change its entries in
place, so the figures it gives after the change are the night as the action leaves it.

What is read, and when: the entries (members joined), the bonus claims and the journal each once, when
something first asks for them; after a committed change, `again` keeps the entries it has when the
night still holds the same ones. The figures are worked out on each ask, never kept: an
action changes the entries under them.
"""
from __future__ import annotations

from functools import cached_property
from typing import NamedTuple

from sqlalchemy import inspect
from sqlalchemy.orm import defer, joinedload

from league import chips, hand_for_hand, late_entry, payouts, pools, seating
from league.finishing import positions_provisional
from league.statuses import FIELD, STACK_IN_PLAY, STILL_IN, DealStatus, EntryStatus, EventStatus
from services import clocks, pool_shares
from services.field import stack_of, starting_stack
from services.journal import Journal, redo_next, redo_of
from services.models import Action, BonusClaim, Entry, Event, Member
from wiring.extensions import db

# Whose arrival may still push the players out so far down (R-PTS-5, R-LATE-3): pre-registered
# players not here yet, requests waiting for their buy-in, and phone check-ins not yet confirmed.
AWAITED = (EntryStatus.REGISTERED, EntryStatus.REQUESTED, EntryStatus.PENDING)

# How many of the night's last actions the host's journal shows (the newest first).
RECENT = 10

# The journal's kind for R-SEAT-4's redraw (the roster's "Draw the final table").
FINAL_TABLE_ACTION = "final"


class Claim(NamedTuple):
    """One bonus claim of the night (R-CHIP-1..3)."""
    entry_id: int
    kind: str
    chips: int


class NightSnapshot:
    """One night as read once: `event`, its `entries` (every one, in id order, members loaded), and on
    first ask its bonus `claims` and its journal (`actions`, newest first)."""

    def __init__(self, event: Event, entries: list[Entry] | None = None) -> None:
        self.event = event
        if entries is not None:
            self.__dict__["entries"] = entries

    @cached_property
    def entries(self) -> list[Entry]:
        """Every entry of the night, in id order, with its member (one read, on first ask)."""
        return list(db.session.scalars(db.select(Entry).options(joinedload(Entry.member, innerjoin=True))
                                       .where(Entry.event_id == self.event.id).order_by(Entry.id)))

    def again(self) -> NightSnapshot:
        """The night after a committed change (blueprints.host_action): the entries this snapshot
        holds, changed in place by the action, when the night still has exactly those (one read of
        their ids instead of every row and member again); else read afresh. Claims and journal are
        read again either way."""
        if "entries" not in self.__dict__:
            return NightSnapshot(self.event)
        held = self.entries
        ids = db.session.scalars(db.select(Entry.id).where(Entry.event_id == self.event.id).order_by(Entry.id)).all()
        if ids == [e.id for e in held] and all(inspect(e).persistent for e in held):
            return NightSnapshot(self.event, held)
        return NightSnapshot(self.event)

    # --- the entries -------------------------------------------------------------------------------

    def entry(self, entry_id: int | None) -> Entry | None:
        """The night's entry with this id, if it has one."""
        return next((e for e in self.entries if e.id == entry_id), None) if entry_id is not None else None

    def entry_of(self, member: Member | None) -> Entry | None:
        """The member's entry tonight, if any."""
        return next((e for e in self.entries if e.member_id == member.id), None) if member is not None else None

    def with_status(self, *statuses: str) -> list[Entry]:
        """The entries in any of `statuses`, in id order."""
        return [e for e in self.entries if e.status in statuses]

    def add(self, entry: Entry) -> Entry:
        """A new entry joins the night (flushed, so it has its id and takes its place in id order)."""
        db.session.add(entry)
        db.session.flush()
        self.entries.append(entry)
        return entry

    def drop(self, entry: Entry, journal: Journal) -> None:
        """An entry leaves the night (a turned-away arrival, a cancelled pre-registration): its bonus
        claims first, noted first, as the database would delete them with the entry behind the
        journal's back, and Undo restores in reverse (the entry comes back before them)."""
        for claim in db.session.scalars(db.select(BonusClaim).where(BonusClaim.entry_id == entry.id)):
            journal.touch(claim)
            db.session.delete(claim)
        journal.touch(entry)
        db.session.delete(entry)
        if entry in self.entries:
            self.entries.remove(entry)
        self.__dict__.pop("claims", None)

    # --- the field (R-PTS-5, R-CHIP-3, R-PAY-1) -----------------------------------------------------

    @property
    def players_left(self) -> int:
        """Players still in, pre-registered players' stacks included (R-CHIP-3: the average stack
        divides by them). Positions are not counted from this: services.places derives them."""
        return sum(1 for e in self.entries if e.status in STILL_IN)

    @property
    def entrants(self) -> list[Entry]:
        """Everyone who took a seat (R-PTS-5)."""
        return self.with_status(*FIELD)

    @property
    def deal_players(self) -> list[Entry]:
        """The players still in, who would share a deal (R-PTS-7)."""
        return self.with_status(EntryStatus.PLAYING)

    def chip_count(self) -> tuple[int, int | None]:
        """R-CHIP-3, R-ENTRY-2: chips in play and the average stack; each re-entry or rebuy put one
        more starting stack in play (`buy_ins`)."""
        in_play = [e for e in self.entries if e.status in STACK_IN_PLAY]
        ids = {e.id for e in in_play}
        bonuses = sum(c.chips for c in self.claims if c.entry_id in ids)
        removed = sum(e.chips_removed for e in in_play)
        default = starting_stack(self.event)
        if all(e.starting_stack is None for e in in_play):
            return chips.chip_count(default, sum(e.buy_ins for e in in_play), bonuses, removed, self.players_left)
        in_chips = chips.chips_in_play(sum(stack_of(self.event, e, default) * e.buy_ins for e in in_play),
                                       bonuses, removed)
        return in_chips, chips.average_stack(in_chips, self.players_left)

    @property
    def prizes(self) -> list[int]:
        """R-PAY-1, R-ENTRY-2: the night's prizes by position (empty for a free night), for the field
        as it stands. Paid places count players; the pool counts every buy-in, re-entries and rebuys
        included. R-FIN: a Top-10 Shoot-out's prizes are fixed (1st $1,000, 2nd $500), whatever the
        field, and so are a free league's Monthly Final's ($300, then a $100 prize); a sponsor's money
        joins the guarantee. R-PAY-3: a Monthly Final's pool also holds the shares its month's buy-ins
        put into it (services.pool_shares, the figure the organiser's ledger shows), once someone has
        taken a seat.
        R-PAY-2: once a deal is agreed, the places its players took are paid their shares, not the
        ladder's (payouts.prizes_as_paid): every screen shows what is paid."""
        ladder = self._ladder()
        placed = dealt(self.event, self.entries)
        if not placed:
            return ladder
        return payouts.prizes_as_paid(ladder, [e.prize for e in self.entries if e.id in placed])

    def _ladder(self) -> list[int]:
        """R-PAY-1, R-PAY-3, R-FIN: the prize ladder for the field as it stands, before any deal."""
        event = self.event
        if fixed := payouts.fixed_prizes(event.event_type, event.league.kind):
            return list(fixed)
        seated = self.entrants
        if not event.buy_in or not seated:
            return []
        pool = pools.final_pool((event.guarantee or 0) + (event.sponsor_money or 0), sum(e.buy_ins for e in seated),
                                event.pool_share or 0, pool_shares.shares_drawn(event))
        # The night's snapshot of its settings: its paid places and payout table (league.settings); a
        # night without one reads the league's now (its paid-places column, its stored payout table).
        snap = event.settings or {}
        percent = snap.get("payout_percent", event.league.payout_percent)
        return payouts.prize_table(len(seated), pool, percent, event.setting("payout_table"))

    @property
    def paid_places(self) -> int:
        """R-PAY-1: the places paid for the field as it stands: the night's percentage of the players who
        took a seat, rounded down, at least 1 (on a free night too: the bubble is where points rise)."""
        percent = (self.event.settings or {}).get("payout_percent", self.event.league.payout_percent)
        return payouts.paid_places(max(len(self.entrants), 1), percent)

    @property
    def tables_in_play(self) -> int:
        """R-HFH-1: the tables with a player still in seated at them."""
        return len({e.table_no for e in self.entries if e.status == EntryStatus.PLAYING and e.table_no is not None})

    @property
    def hand_for_hand_suggested(self) -> bool:
        """R-HFH-1: whether the host's screen suggests hand-for-hand now (it is off, and the players left
        are no more than the paid places plus the tables in play, the bubble not yet burst)."""
        if self.event.hand_for_hand or self.event.status != EventStatus.RUNNING:
            return False
        left = sum(1 for e in self.entries if e.status == EntryStatus.PLAYING)
        return hand_for_hand.suggested(left, self.paid_places, self.tables_in_play)

    @property
    def next_step(self) -> int:
        """The `bust_hand` number for the next hand or disqualification: one more than any so far
        (services.places: their order is the order of elimination)."""
        return max((e.bust_hand for e in self.entries if e.bust_hand is not None), default=0) + 1

    @property
    def provisional(self) -> bool:
        """R-PTS-5, R-LATE-3: whether the positions shown now may still move down: registration is
        open, or a player is still awaited (pre-registered, or checked in and not confirmed). Never
        once the night is settled."""
        if self.event.status == EventStatus.SETTLED:
            return False
        awaited = sum(1 for e in self.entries if e.status in AWAITED)
        return positions_provisional(clocks.clock_view(self.event).registration_open, awaited=awaited)

    # --- seats (R-SEAT-1..4) --------------------------------------------------------------------------

    @property
    def seated(self) -> dict[Entry, seating.Seat]:
        """The players in the game who have a seat, and their seats."""
        return {e: seating.Seat(e.table_no, e.seat_no) for e in self.entries
                if e.status == EntryStatus.PLAYING and e.table_no is not None}

    @cached_property
    def final_table_drawn(self) -> bool:
        """R-SEAT-4: the final table has been drawn (and not undone). Not "everyone at one table": a
        night small enough for one table was drawn there and never "moves to the final table"."""
        drawn = db.select(Action.id).where(Action.event_id == self.event.id, Action.kind == FINAL_TABLE_ACTION,
                                           Action.undone_at.is_(None)).limit(1)
        return db.session.scalar(drawn) is not None

    # --- bonus chips (R-CHIP-1..3) ---------------------------------------------------------------------

    @cached_property
    def claims(self) -> list[Claim]:
        """Every bonus claim of the night (one read, on first ask)."""
        return [Claim(*row) for row in db.session.execute(
            db.select(BonusClaim.entry_id, BonusClaim.kind, BonusClaim.chips).join(Entry)
            .where(Entry.event_id == self.event.id).order_by(BonusClaim.id))]

    def bonus_of(self, entry: Entry) -> int:
        """R-CHIP-3: the bonus chips accepted for one entry."""
        return sum(c.chips for c in self.claims if c.entry_id == entry.id)

    @property
    def claimed(self) -> dict[int, set[str]]:
        """R-CHIP-1: the bonus kinds each entry already has (one of each per player)."""
        found: dict[int, set[str]] = {}
        for claim in self.claims:
            found.setdefault(claim.entry_id, set()).add(claim.kind)
        return found

    # --- late arrivals (R-LATE-3) ----------------------------------------------------------------------

    def missed_blinds(self, entry: Entry) -> tuple[int, str] | None:
        """R-LATE-3: the deduction proposed for a pre-registered player who arrived after play began
        (None when there is nothing to propose or it was already taken)."""
        if (not entry.pre_registered or entry.arrived_at is None or entry.chips_removed
                or entry.status != EntryStatus.PLAYING):
            return None
        view = clocks.clock_view(self.event)
        if not view.started:
            return None
        amount, text = late_entry.missed_blinds_proposal(clocks.structure_of(self.event), view)
        return (amount, text) if amount else None

    # --- the journal -------------------------------------------------------------------------------------

    @cached_property
    def recent(self) -> list[Action]:
        """The night's last RECENT actions, newest first, those taken back included (`undone_at`).
        Their `changes` (every row a settle or a seat draw noted) load only when read, as undo does;
        a night's hundreds of older actions are not read at all."""
        return list(db.session.scalars(db.select(Action).options(defer(Action.changes), defer(Action.redo))
                                       .where(Action.event_id == self.event.id).order_by(Action.id.desc())
                                       .limit(RECENT)))

    @cached_property
    def last_action(self) -> Action | None:
        """The newest action of the night not yet taken back: what Undo takes back (read apart only
        when every recent one was taken back)."""
        found = next((a for a in self.recent if a.undone_at is None), None)
        if found is not None or len(self.recent) < RECENT:
            return found
        return db.session.scalar(db.select(Action).options(defer(Action.changes), defer(Action.redo)).where(
            Action.event_id == self.event.id, Action.undone_at.is_(None)).order_by(Action.id.desc()).limit(1))

    @cached_property
    def redo_action(self) -> Action | None:
        """The action Redo would put back (services.journal.redo_of): none unless the night's newest
        action was taken back, since a new one ends what Redo keeps; found among the recent actions
        when the newest standing is among them, else read from the journal."""
        if not self.recent or self.recent[0].undone_at is None:
            return None
        last = self.last_action
        if last is None and len(self.recent) < RECENT or last is not None and last in self.recent:
            return redo_of(self.recent, last)
        return redo_next(self.event, last)


def dealt(event: Event, entries: list[Entry]) -> dict[int, int]:
    """R-PTS-7: the chip counts of the players an agreed deal placed (empty without one): those still
    in when it was agreed, so never a player who busted or was disqualified."""
    if event.deal_status != DealStatus.AGREED:
        return {}
    return {e.id: e.chips_at_deal for e in entries if e.status in FIELD and e.status != EntryStatus.DQ
            and e.bust_hand is None and e.chips_at_deal is not None}


def read_night(event: Event) -> NightSnapshot:
    """R-PTS-5, R-CHIP-3, R-SEAT: the night, its parts read when first asked for (the event with its
    league in one read now, when a commit or a version's move left the event to load again)."""
    state = inspect(event)
    if state.expired_attributes:
        db.session.scalar(db.select(Event).options(joinedload(Event.league)).where(Event.id == state.identity[0])
                          .execution_options(populate_existing=True))
    return NightSnapshot(event)
