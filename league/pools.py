"""The prize pools and the organiser's ledger (R-PAY-3): each cash buy-in split between the night's
pool, the month's Monthly Final pool, the season's Top-50 pool and the fee; the books of a month or
a season balancing to the dollar (taken in = paid out + fees + carried to a later pool)."""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field

from league.payouts import NightMoney, league_funded_prizes
from league.statuses import LeagueKind

# R-PAY-3 leaves the shares to settings; these are the house's (whole dollars of each buy-in), read
# from settings[event_type]["final_share"] and settings[event_type]["top50_share"]. A nightly $30
# buy-in: $20 to the night (league.payouts.HOUSE_MONEY), $5 to the month's Monthly Final, $3 to the
# season's Top-50 pool, $2 fee. A $60 high-roller game: $45 / $5 / $5, $5 fee. Finals put every
# entry in their own pool ("$500 plus entry fees", R-FIN), so they give no shares.
FINAL_SHARE = "final_share"
TOP50_SHARE = "top50_share"


@dataclass(frozen=True)
class Shares:
    """Dollars of each buy-in that go to the month's Monthly Final pool and to the season's Top-50
    pool (R-PAY-3)."""

    final_share: int = 0
    top50_share: int = 0


HOUSE_SHARES: dict[str, Shares] = {
    "nightly": Shares(final_share=5, top50_share=3),
    "highroller": Shares(final_share=5, top50_share=5),
}
NO_SHARES = Shares()


def default_shares(event_type: str, league_kind: str, settings: Mapping | None = None) -> Shares:
    """R-PAY-3: the Monthly Final and Top-50 shares of each buy-in for `event_type`: the house's
    (HOUSE_SHARES; none in a free-to-play league, none for finals), overridden by the league's
    settings[event_type]["final_share" | "top50_share"]."""
    if league_kind != LeagueKind.CASH:
        return NO_SHARES
    house = HOUSE_SHARES.get(event_type, NO_SHARES)
    chosen = (settings or {}).get(event_type, {}) or {}
    return Shares(int(chosen.get(FINAL_SHARE, house.final_share)), int(chosen.get(TOP50_SHARE, house.top50_share)))


def night_shares(event_type: str, league_kind: str, snapshot: Mapping | None,
                 settings: Mapping | None = None) -> Shares:
    """R-PAY-3: the shares one night gives, from its own settings snapshot (`snapshot`, the
    `final_share` and `top50_share` it was created with, league.settings.event_snapshot), so that a
    later change of the league's settings leaves last month's books as they were; a night without
    a snapshot (or a snapshot without the shares) reads the league's `settings` now (default_shares)."""
    if league_kind != LeagueKind.CASH:
        return NO_SHARES
    now = default_shares(event_type, league_kind, settings)
    kept = snapshot or {}
    return Shares(int(kept.get(FINAL_SHARE, now.final_share)), int(kept.get(TOP50_SHARE, now.top50_share)))


def shares_problem(money: NightMoney, shares: Shares) -> str | None:
    """R-PAY-3: why these shares cannot be taken from this buy-in (negative, or the night's pool and
    the shares together more than the buy-in), or None. For the settings page to refuse with."""
    if shares.final_share < 0 or shares.top50_share < 0:
        return "the Monthly Final and Top-50 shares are whole dollars, 0 or more"
    taken = money.pool_share + shares.final_share + shares.top50_share
    if taken > money.buy_in:
        return (f"the night's pool (${money.pool_share}), the Monthly Final share (${shares.final_share}) and the "
                f"Top-50 share (${shares.top50_share}) come to ${taken}, more than the buy-in (${money.buy_in})")
    return None


@dataclass(frozen=True)
class Split:
    """Where one buy-in goes (R-PAY-3), whole dollars that add up to the buy-in."""

    night: int
    final: int
    top50: int
    fee: int

    @property
    def total(self) -> int:
        return self.night + self.final + self.top50 + self.fee


def split_buy_in(money: NightMoney, shares: Shares) -> Split:
    """R-PAY-3: one buy-in split between the night's pool, the month's Monthly Final pool, the
    season's Top-50 pool and the fee (the rest). Shares that come to more than the buy-in (a
    setting the settings page should have refused, shares_problem) are met in that order as far as
    the buy-in goes, so the split always adds up to the buy-in and no fee is negative."""
    left = max(money.buy_in, 0)
    parts = []
    for wanted in (money.pool_share, shares.final_share, shares.top50_share):
        part = min(max(wanted, 0), left)
        parts.append(part)
        left -= part
    return Split(*parts, fee=left)


@dataclass(frozen=True)
class EventMoney:
    """One settled event's money as the database holds it, for the ledger (R-PAY-3).

    `month` is the event's own month (its Monthly Final share goes to that month's pool);
    `draws` is, for a Monthly Final, the month whose Monthly Final pool it pays out (None for any
    other event). `field` counts who took a seat (R-PTS-5); `forfeited` the pre-registered players
    who never came and forfeit their buy-in (R-LATE-3); `paid_out` the prizes paid; `buy_ins` the
    buy-ins of those who took a seat, re-entries and rebuys included (R-ENTRY-2: each adds its buy-in
    to the pool, split like any other, R-PAY-3), None: one each (`field`). `sponsor` is money a named
    sponsor put into the event's pool; `league_funds` the most the league itself pays of a final's
    fixed prizes (a free league's finals, league.payouts.league_funded_prizes).
    """

    key: Hashable
    month: str
    money: NightMoney
    shares: Shares
    field: int
    forfeited: int = 0
    paid_out: int = 0
    draws: str | None = None
    buy_ins: int | None = None
    sponsor: int = 0
    league_funds: int = 0

    @property
    def bought(self) -> int:
        """R-ENTRY-2, R-PAY-3: the buy-ins split into the pools: every re-entry and rebuy counts."""
        return self.field if self.buy_ins is None else self.buy_ins


@dataclass(frozen=True)
class EventLine:
    """One event's line in the ledger (R-PAY-3), whole dollars.

    taken_in = every buy-in paid (re-entries and rebuys included, R-ENTRY-2); pool = guarantee + a
    sponsor's money + the night's share of each buy-in + `drawn` (a Monthly Final's pool from the nights
    of its month) + `funded` (the fixed prizes the league pays itself, as far as the rest fell short);
    left = pool − paid out, still in the pool (0 for a Monthly Final whose prize table paid the shares
    it drew; a final paid from its guarantee and entries alone leaves them there); `short` = what was
    paid out beyond the pool, money with no source (never a negative `left`); fee = each buy-in's fee
    plus the forfeited buy-ins (house decision: a no-show's buy-in is the league's, as it never
    entered the prize pool, R-PAY-1)."""

    key: Hashable
    taken_in: int
    guarantee: int
    to_pool: int
    drawn: int
    pool: int
    paid_out: int
    left: int
    to_final: int
    to_top50: int
    fee: int
    sponsor: int = 0
    funded: int = 0
    short: int = 0


@dataclass(frozen=True)
class Ledger:
    """A month's or season's books (R-PAY-3). In: buy-ins taken in, guarantees put up, sponsors'
    money, the prizes the league funds itself (a free league's finals, R-FIN), and pools brought
    forward from earlier periods' nights (a Monthly Final held this month for last month). Out: prizes
    paid, fees, and money carried to a later pool (the Monthly Final of a month whose final is not in
    the period, the season's Top-50 pool, what is left in a pool). `short`: prizes paid with no
    source, by which money out exceeds money in (never hidden as a negative carry)."""

    lines: tuple[EventLine, ...]
    taken_in: int
    guarantees: int
    brought_forward: int
    paid_out: int
    fees: int
    carried: int
    final_pools: Mapping[str, int] = field(default_factory=dict)  # month → its Monthly Final pool from shares
    top50_pool: int = 0
    left_in_pools: int = 0
    carried_finals: Mapping[str, int] = field(default_factory=dict)  # month → its pool no final here drew
    sponsors: int = 0
    funded: int = 0
    short: int = 0

    @property
    def money_in(self) -> int:
        return self.taken_in + self.guarantees + self.sponsors + self.funded + self.brought_forward

    @property
    def money_out(self) -> int:
        return self.paid_out + self.fees + self.carried

    @property
    def balances(self) -> bool:
        """R-PAY-3: taken in (with guarantees, sponsors, the league's funding and pools brought forward)
        = paid out + fees + carried, with no prize paid short of its source."""
        return self.short == 0 and self.money_in == self.money_out

    @property
    def short_lines(self) -> tuple[EventLine, ...]:
        """R-PAY-3: the events that paid out more than their pool held."""
        return tuple(line for line in self.lines if line.short)


def final_pool(guarantee: int, entries: int, buy_in_to_pool: int, shares_in: int = 0) -> int:
    """R-PAY-3, R-FIN: a final's pool is its guarantee plus the entries and the shares allocated to
    it (THPA: $500 plus entry fees)."""
    if min(guarantee, entries, buy_in_to_pool, shares_in) < 0:
        raise ValueError("a guarantee, entries and shares cannot be negative")
    return guarantee + entries * buy_in_to_pool + shares_in


def ledger(events: Sequence[EventMoney], brought: Mapping[str, int] | None = None) -> Ledger:
    """R-PAY-3: the books of a period's settled events, balancing to the dollar.

    Every buy-in is split (split_buy_in), re-entries and rebuys too (R-ENTRY-2, EventMoney.bought);
    each month's Monthly Final shares make that month's pool, which the first Monthly Final drawing on
    that month (`draws`) adds to its own pool. A final
    drawing a month outside the period takes `brought[month]` (the pool its month's nights built),
    which comes in as brought forward. What no final of the period draws is carried; so are the
    Top-50 shares (the season's pool) and whatever a pool did not pay out.
    """
    brought = brought or {}
    final_pools: dict[str, int] = {}
    splits = []
    for event in events:
        split = split_buy_in(event.money, event.shares)
        splits.append(split)
        final_pools[event.month] = final_pools.get(event.month, 0) + event.bought * split.final
    undrawn = dict(final_pools)
    used_brought: set[str] = set()
    lines, brought_forward = [], 0
    for event, split in zip(events, splits):
        drawn = 0
        if event.draws is not None:
            if event.draws in undrawn:
                drawn = undrawn.pop(event.draws)
            elif event.draws not in final_pools and event.draws not in used_brought:
                drawn = max(brought.get(event.draws, 0), 0)
                used_brought.add(event.draws)
                brought_forward += drawn
        lines.append(_line(event, split, drawn))
    top50 = sum(line.to_top50 for line in lines)
    left = sum(line.left for line in lines)
    return Ledger(
        lines=tuple(lines), taken_in=sum(line.taken_in for line in lines),
        guarantees=sum(line.guarantee for line in lines), brought_forward=brought_forward,
        paid_out=sum(line.paid_out for line in lines), fees=sum(line.fee for line in lines),
        carried=sum(undrawn.values()) + top50 + left, final_pools=final_pools, top50_pool=top50,
        left_in_pools=left, carried_finals=undrawn, sponsors=sum(line.sponsor for line in lines),
        funded=sum(line.funded for line in lines), short=sum(line.short for line in lines))


def _line(event: EventMoney, split: Split, drawn: int) -> EventLine:
    """R-PAY-3, R-FIN: one event's line: its pool from its sources (guarantee, sponsor, its share of
    each buy-in, the shares it drew), then the league's own money for fixed prizes the sources did not
    cover, up to `league_funds`; what is paid beyond all of them is `short`, never a negative left."""
    bought = event.bought
    to_pool = bought * split.night
    sourced = event.money.guarantee + max(event.sponsor, 0) + to_pool + drawn
    funded = min(max(event.paid_out - sourced, 0), max(event.league_funds, 0))
    pool = sourced + funded
    return EventLine(
        key=event.key, taken_in=(bought + event.forfeited) * event.money.buy_in,
        guarantee=event.money.guarantee, to_pool=to_pool, drawn=drawn, pool=pool, paid_out=event.paid_out,
        left=max(pool - event.paid_out, 0), to_final=bought * split.final, to_top50=bought * split.top50,
        fee=bought * split.fee + event.forfeited * event.money.buy_in, sponsor=max(event.sponsor, 0),
        funded=funded, short=max(event.paid_out - pool, 0))


def event_money(key: Hashable, event_type: str, month: str, shares: Shares, money: NightMoney, field_size: int,
                forfeited: int, paid_out: int, draws: str | None, buy_ins: int | None = None, *,
                league_kind: str = LeagueKind.CASH, sponsor: int = 0) -> EventMoney:
    """R-PAY-3, R-ENTRY-2, R-FIN: an event's ledger entry from what the event stores (its buy-in,
    night's share, guarantee and sponsor's money), the shares it gives (night_shares) and its buy-ins
    (`buy_ins`, re-entries and rebuys included; None: one per player); only a Monthly Final draws a
    month's pool; a free league's finals pay their fixed prizes from the league's own money."""
    return EventMoney(key, month, money, shares, field_size, forfeited, paid_out,
                      draws if event_type == "monthly_final" else None, buy_ins, sponsor,
                      league_funded_prizes(event_type, league_kind))
