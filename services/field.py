"""Who is in tonight's game and what they hold: entries, players left, the field, starting stacks,
bonus chips, chips in play and the prize table (R-PTS-5, R-CHIP-1..3, R-PAY-1)."""
from __future__ import annotations

from sqlalchemy import func

from league import chips, finals, night, payouts, pools
from league.events import event_type
from league.statuses import FIELD, LIVE, OPEN_EVENTS, STACK_IN_PLAY, STILL_IN, EntryStatus
from services import pool_shares
from services.journal import Journal
from services.models import BonusClaim, Entry, Event, Member
from wiring.extensions import db


def entry_of(event: Event, member: Member) -> Entry | None:
    """The member's entry in this event, if any."""
    return db.session.scalar(db.select(Entry).where(Entry.event_id == event.id, Entry.member_id == member.id))


def entries_of(event: Event) -> list:
    """Every entry of the event in id order, as plain rows of what the clock's counts and seat digest
    read (id, status, table, seat, position, chips removed, own stack, stacks bought, penalty's end):
    one read, and no 200 objects built on the path of every host action and every stream message."""
    return list(db.session.execute(db.select(Entry.id, Entry.status, Entry.table_no, Entry.seat_no, Entry.position,
                                             Entry.chips_removed, Entry.starting_stack, Entry.buy_ins,
                                             Entry.penalty_until)
                                   .where(Entry.event_id == event.id).order_by(Entry.id)))


def players_left(event: Event, entries: list | None = None) -> int:
    """Players still in, pre-registered players' stacks included (R-CHIP-3: the average stack divides by
    them). Positions are not counted from this: services.places derives them from the field."""
    if entries is not None:
        return sum(1 for e in entries if e.status in STILL_IN)
    return db.session.scalar(db.select(func.count()).select_from(Entry).where(
        Entry.event_id == event.id, Entry.status.in_(STILL_IN)))


def bonus_values(event: Event) -> dict[str, int] | None:
    """The chip values of this event type's bonuses as the night was created with them (its settings
    snapshot), else the league's (None: the defaults)."""
    if event.settings and "bonuses" in event.settings:
        return event.settings["bonuses"]
    return (event.league.settings or {}).get(event.event_type, {}).get("bonuses")


def bonus_chips(entry: Entry) -> int:
    """R-CHIP-3: the bonus chips accepted for one entry."""
    # int(): PostgreSQL sums a BIGINT column as NUMERIC, which arrives as a Decimal (R-CHIP-3's
    # average is a Fraction of whole chips).
    return int(db.session.scalar(db.select(func.coalesce(func.sum(BonusClaim.chips), 0)).where(
        BonusClaim.entry_id == entry.id)) or 0)


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


def chip_count(event: Event, entries: list | None = None) -> tuple[int, int | None]:
    """R-CHIP-3, R-ENTRY-2: chips in play and the average stack; each re-entry or rebuy put one more
    starting stack in play (`buy_ins`)."""
    entries = entries_of(event) if entries is None else entries
    in_play = [e for e in entries if e.status in STACK_IN_PLAY]
    bonuses = int(db.session.scalar(db.select(func.coalesce(func.sum(BonusClaim.chips), 0)).join(Entry).where(
        Entry.event_id == event.id, Entry.status.in_(STACK_IN_PLAY))) or 0)  # int(): as bonus_chips
    removed = sum(e.chips_removed for e in in_play)
    left = players_left(event, entries)
    default = starting_stack(event)
    if all(e.starting_stack is None for e in in_play):
        return night.chip_count(default, sum(e.buy_ins for e in in_play), bonuses, removed, left)
    in_chips = chips.chips_in_play(sum(stack_of(event, e, default) * e.buy_ins for e in in_play), bonuses, removed)
    return in_chips, chips.average_stack(in_chips, left)


def entrants(event: Event) -> list[Entry]:
    """Everyone who took a seat (R-PTS-5)."""
    return db.session.scalars(db.select(Entry).where(
        Entry.event_id == event.id, Entry.status.in_(FIELD))).all()


def prize_table(event: Event, entries: list | None = None) -> list[int]:
    """R-PAY-1, R-ENTRY-2: the night's prizes by position (empty for a free night), for the field as it
    stands: everyone who took a seat (R-PTS-5), from `entries` (entries_of rows or models) when given.
    Paid places count players; the pool counts every buy-in, re-entries and rebuys included.
    R-FIN: a Top-10 Shoot-out's prizes are fixed (1st $1,000, 2nd $500), whatever the field.
    R-PAY-3: a Monthly Final's pool also holds the shares its month's buy-ins put into it
    (services.pool_shares, the figure the organiser's ledger shows), once someone has taken a seat."""
    if fixed := payouts.fixed_prizes(event.event_type):
        return list(fixed)
    if not event.buy_in:
        return []
    seated = entrants(event) if entries is None else [e for e in entries if e.status in FIELD]
    if not seated:
        return []
    pool = pools.final_pool(event.guarantee or 0, sum(e.buy_ins for e in seated), event.pool_share or 0,
                            pool_shares.shares_drawn(event))
    # The night's snapshot: its paid places and payout table (league.settings); a night without one
    # reads the league's now (its paid-places column, the payout table it stores: Event.setting).
    snap = event.settings or {}
    percent = snap.get("payout_percent", event.league.payout_percent)
    return night.prize_table(len(seated), pool, percent, event.setting("payout_table"))


def deal_players(event: Event) -> list[Entry]:
    """The players still in, who would share a deal."""
    return db.session.scalars(db.select(Entry).where(Entry.event_id == event.id, Entry.status == EntryStatus.PLAYING)
                              .order_by(Entry.id)).all()


def drop_entry(entry: Entry, journal: Journal) -> None:
    # Bonus claims go first and are noted first: the database would delete them with the entry
    # behind the journal's back, and Undo restores in reverse, so the entry comes back before them.
    for claim in db.session.scalars(db.select(BonusClaim).where(BonusClaim.entry_id == entry.id)):
        journal.touch(claim)
        db.session.delete(claim)
    journal.touch(entry)
    db.session.delete(entry)


def live_game_elsewhere(member: Member, event: Event) -> Event | None:
    """R-LATE-4: another unfinished event the member is still in."""
    return db.session.scalar(db.select(Event).join(Entry).where(
        Entry.member_id == member.id, Entry.status.in_(LIVE), Event.id != event.id,
        Event.status.in_(OPEN_EVENTS)).limit(1))
