"""The money of settled events as the ledger counts it, and the shares a month's buy-ins put into its
Monthly Final pool (R-PAY-3): one query, read by the final's prize table (services.field) and by the
organiser's ledger (services.pack), so the prizes a final pays are the pool the books show."""
from __future__ import annotations

from collections import defaultdict
from typing import NamedTuple

from sqlalchemy import func

from league import pools
from league.finals import qualifying_month
from league.payouts import NightMoney
from league.statuses import PARTICIPANT_STATUSES, EntryStatus, EventStatus, LeagueKind
from services.leagues import parse_month, settle_order
from services.models import Entry, Event, League
from wiring.extensions import db

MONTHLY_FINAL = "monthly_final"


class Counts(NamedTuple):
    """One event's entries of one status: how many, the prizes paid them, and their buy-ins
    (re-entries and rebuys included, R-ENTRY-2)."""

    entries: int
    prizes: int
    buy_ins: int


NONE = Counts(0, 0, 0)


def entry_counts(event_ids: list[int]) -> dict[int, dict[str, Counts]]:
    """event → entry status → Counts (entries, prizes paid, buy-ins), in one query."""
    found: dict[int, dict[str, Counts]] = defaultdict(dict)
    if event_ids:
        for event_id, status, count, prizes, buy_ins in db.session.execute(
                db.select(Entry.event_id, Entry.status, func.count(Entry.id), func.coalesce(func.sum(Entry.prize), 0),
                          func.coalesce(func.sum(Entry.buy_ins), 0))
                .where(Entry.event_id.in_(event_ids)).group_by(Entry.event_id, Entry.status)):
            found[event_id][status] = Counts(int(count), int(prizes or 0), int(buy_ins or 0))
    return found


def field_of(counts: dict[str, Counts]) -> int:
    """R-PTS-5: who took a seat, from entry_counts' row for one event."""
    return sum(counts.get(status, NONE).entries for status in PARTICIPANT_STATUSES)


def buy_ins_of(counts: dict[str, Counts]) -> int:
    """R-ENTRY-2, R-PAY-1: the buy-ins of those who took a seat, each re-entry and rebuy one more (what
    the night's prize table counts, NightSnapshot.prizes)."""
    return sum(counts.get(status, NONE).buy_ins for status in PARTICIPANT_STATUSES)


def shares_of(event: Event) -> pools.Shares:
    """R-PAY-3: the Monthly Final and Top-50 shares of each of the night's buy-ins, from the night's own
    settings snapshot (league.pools.night_shares): a change of the league's settings today leaves the
    nights already created, and last month's books, as they were."""
    league = event.league
    return pools.night_shares(event.event_type, league.kind, event.settings, league.settings)


def event_money(event: Event, counts: dict[str, Counts]) -> pools.EventMoney:
    """R-PAY-3, R-ENTRY-2: one settled event's ledger entry (league.pools.event_money) from its stored
    money, its shares (shares_of) and its entries (`counts`, entry_counts' row): every buy-in taken in
    and split, re-entries and rebuys included, as the night's prize table counts them."""
    draws = qualifying_month(event.date, event.final_month) if event.event_type == MONTHLY_FINAL else None
    return pools.event_money(
        event.id, event.event_type, event.month, shares_of(event),
        NightMoney(event.buy_in or 0, event.pool_share or 0, event.guarantee or 0), field_of(counts),
        counts.get(EntryStatus.NO_SHOW, NONE).entries if event.buy_in else 0,
        sum(c.prizes for c in counts.values()), draws, buy_ins_of(counts), league_kind=event.league.kind,
        sponsor=event.sponsor_money or 0)


def month_final_pool(league: League, month: str) -> int:
    """R-PAY-3: the Monthly Final pool that `month`'s settled events built from their shares."""
    first, following = parse_month(month)
    events = db.session.scalars(db.select(Event).where(
        Event.league_id == league.id, Event.status == EventStatus.SETTLED, Event.date >= first,
        Event.date < following, Event.buy_in > 0)).all()
    counts = entry_counts([e.id for e in events])
    return pools.ledger([event_money(e, counts.get(e.id, {})) for e in events]).final_pools.get(month, 0)


def _drawn_by_another(event: Event, month: str) -> bool:
    """Whether another settled Monthly Final of the league for `month`, before this one in settle
    order, draws the month's pool (a month's pool is paid once, by the first of its finals, as
    league.pools.ledger counts it; correcting that first final later still pays it)."""
    following = parse_month(month)[1]
    after = parse_month(following.strftime("%Y-%m"))[1]
    others = db.session.scalars(db.select(Event).where(
        Event.league_id == event.league_id, Event.event_type == MONTHLY_FINAL, Event.status == EventStatus.SETTLED,
        Event.id != event.id, (Event.final_month == month)
        | (Event.final_month.is_(None) & (Event.date >= following) & (Event.date < after))))
    mine = settle_order(event)
    return any(qualifying_month(e.date, e.final_month) == month and settle_order(e) < mine for e in others)


def shares_drawn(event: Event) -> int:
    """R-PAY-3, R-FIN: what a Monthly Final's pool takes from the shares of its qualifying month's
    buy-ins ("a final's pool is its guarantee plus the entries and shares allocated to it"): that
    month's Monthly Final pool, unless another final of the month already paid it out; 0 for any other
    event, and for a free league (no shares). The Top-50 shares stay in the season's pool: no final of
    R-FIN pays from it (the Shoot-out's prizes are fixed)."""
    if event.event_type != MONTHLY_FINAL or event.league.kind != LeagueKind.CASH:
        return 0
    month = qualifying_month(event.date, event.final_month)
    if _drawn_by_another(event, month):
        return 0
    return month_final_pool(event.league, month)
