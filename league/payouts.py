"""Prize money: paid places, pools, payout tables, each finisher's prize (ties shared, a disqualified
player's paid down the order) and the deal splits (R-PAY, R-PTS-5, R-PTS-6)."""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from league.finals import FINALS
from league.numbers import is_whole
from league.points import check_finishing_order
from league.statuses import EntryStatus, LeagueKind

# House default payout tables for small numbers of paid places, in percent, 1st first (a league's
# payout table setting starts from these: league.settings).
HOUSE_TABLES: dict[int, tuple[int, ...]] = {
    1: (100,),
    2: (65, 35),
    3: (50, 30, 20),
    4: (45, 27, 17, 11),
    5: (40, 25, 16, 11, 8),
}


def paid_places(field_size: int, percent: int = 10) -> int:
    """Paid places: `percent` % of the field rounded down, at least 1; 0 for no field (R-PAY-1).

    THPA pays 10 %; the Poker Factory up to 15 % (a setting).
    """
    if field_size < 0 or not 0 <= percent <= 100:
        raise ValueError(f"impossible field {field_size} or percentage {percent}")
    if field_size == 0:
        return 0
    return max(1, field_size * percent // 100)


def prize_pool(entries: int, pool_share_per_entry: int, guarantee: int = 0) -> int:
    """Prize pool = guarantee + each entry's share going to this pool, in dollars (R-PAY-1).

    The guarantee is added, not a floor: the finals' "$500 plus entry fees" (R-FIN).
    """
    if entries < 0 or pool_share_per_entry < 0 or guarantee < 0:
        raise ValueError("entries, share and guarantee cannot be negative")
    return guarantee + entries * pool_share_per_entry


def payout_percentages(places: int) -> tuple[Fraction, ...]:
    """The house default share of the pool for each paid place, 1st first (R-PAY-1).

    House decision: up to 5 places the table is 100; 65/35; 50/30/20; 45/27/17/11;
    40/25/16/11/8 (%). Beyond, place i gets a share proportional to 1/(4i + 1), a
    harmonic curve that is strictly decreasing for any number of places, gives 1st about
    37 % of 6 places and 19 % of 60, and never leaves the last place with nothing.
    Shares are exact and sum to exactly 1.
    """
    if places < 1:
        raise ValueError(f"a payout table needs at least one place, not {places}")
    if places in HOUSE_TABLES:
        return tuple(Fraction(percent, 100) for percent in HOUSE_TABLES[places])
    weights = [Fraction(1, 4 * place + 1) for place in range(1, places + 1)]
    total = sum(weights)
    return tuple(weight / total for weight in weights)


def payouts(pool: int, places: int, table: Mapping | None = None) -> list[int]:
    """Whole-dollar prizes for `places` paid places from `pool`, 1st first (R-PAY-1).

    Each place gets the floor of its share of the league's payout table (`table`: percent per
    place by number of places; keys may be JSON's strings), or of the house curve for a number of
    places the table has no row for; the dollars left over go to 1st, so the prizes sum exactly to
    the pool. No places, no prizes.
    """
    if pool < 0 or places < 0:
        raise ValueError("pool and places cannot be negative")
    if places == 0:
        return []
    row = (table or {}).get(places, (table or {}).get(str(places)))
    shares = [Fraction(percent, 100) for percent in row] if row and len(row) == places else payout_percentages(places)
    amounts = [math.floor(pool * share) for share in shares]
    amounts[0] += pool - sum(amounts)
    return amounts


def share_tied_prizes(amounts: Sequence[int], positions: Mapping[Hashable, int]) -> dict[Hashable, int]:
    """Dollars per player when tied players share the prizes of the positions they cover (R-PTS-6).

    `amounts` is the prize for each position, 1st first (positions beyond it pay 0);
    `positions` maps every finisher to their shared position (1, 2, 2, 4), which must form
    a valid finishing order. A group at position p with k players covers p .. p+k-1 and
    splits those prizes evenly in whole dollars; leftover dollars go one each to the
    group's players in the order given. The total paid equals the prizes covered.
    Withholding a disqualified player's share (R-PTS-5) is the caller's decision.
    """
    check_finishing_order(positions.values())
    groups: dict[int, list[Hashable]] = {}
    for key, position in positions.items():
        groups.setdefault(position, []).append(key)
    shares: dict[Hashable, int] = {}
    for position in sorted(groups):
        members = groups[position]
        total = sum(amounts[position - 1: position - 1 + len(members)])
        each, leftover = divmod(total, len(members))
        for index, key in enumerate(members):
            shares[key] = each + (1 if index < leftover else 0)
    return shares


def prize_table(field_size: int, pool: int, percent: int = 10, table: Mapping | None = None) -> list[int]:
    """Whole-dollar prizes for the paid places, 1st first (R-PAY-1).

    Paid places = `percent` % of the field rounded down, at least 1 (paid_places),
    split by the league's payout table or the house's (payouts), remainder to 1st.
    """
    return payouts(pool, paid_places(field_size, percent), table)


def prizes_for(
    positions: Mapping[Hashable, int], statuses: Mapping[Hashable, str], prize_table: Sequence[int],
) -> dict[Hashable, int]:
    """Each finisher's prize in whole dollars (R-PAY-1, R-PTS-5, R-PTS-6).

    `positions` are the finishing positions (ties shared, 1, 2, 2, 4) of everyone who took a
    seat; `statuses` "played" (the default when missing) or "dq". A disqualified player gets
    0. House decision: their prize stays in the pool, paid down the order of the others:
    the players who were not disqualified are re-ranked among themselves, keeping their
    order and ties, and paid by that rank, tied players sharing the prizes of the places
    they cover (share_tied_prizes).
    """
    check_finishing_order(positions.values())
    for status in statuses.values():
        if status not in (EntryStatus.PLAYED, EntryStatus.DQ):
            raise ValueError(f"A prize needs status played or dq, not {status!r}")
    if any(not is_whole(amount) or amount < 0 for amount in prize_table):
        raise ValueError("Prizes are whole dollars, 0 or more")
    paid = {key: position for key, position in positions.items()
            if statuses.get(key, EntryStatus.PLAYED) != EntryStatus.DQ}
    ranks = sorted(paid.values())
    # Rank among the paid = 1 + how many of them finished strictly higher: order and ties kept.
    first_index = {}
    for index, position in enumerate(ranks):
        first_index.setdefault(position, index)
    reranked = {key: first_index[position] + 1 for key, position in paid.items()}
    prizes = share_tied_prizes(prize_table, reranked)
    return {key: prizes.get(key, 0) for key in positions}


def prizes_as_paid(ladder: Sequence[int], deal_shares: Sequence[int]) -> list[int]:
    """The night's prizes by place as paid once a deal is agreed (R-PAY-1, R-PAY-2, R-PTS-7).

    The chip count fixed the deal's players in the top places (R-PTS-7), most chips best, and a
    split never gives a larger stack a smaller share, so the places they took are paid their shares
    largest first; the places below are paid from `ladder` (the players out before the deal). The
    deal shares out the unpaid prizes among every player left, so it may pay more places than the
    ladder did (four players sharing three prizes). Without a deal (no shares) this is the ladder;
    with no ladder (a free night) there is no money to show, whatever the deal decided.
    """
    if not ladder:
        return []
    paid = sorted(deal_shares, reverse=True) + list(ladder[len(deal_shares):])
    while paid and paid[-1] == 0:  # a share of nothing is no prize
        paid.pop()
    return paid


def chip_chop(stacks: Sequence[int], prizes: Sequence[int]) -> list[float]:
    """Chip-chop deal: each player's share of the unpaid prize money (R-PAY-2).

    Each remaining player is first guaranteed the smallest prize still payable to all of
    them (the prize for the last remaining place; 0 with fewer prizes than players), then
    the rest is split in proportion to chips. Prizes beyond the number of players are
    ignored. The shares sum to the prizes for the remaining places.
    """
    if any(stack < 0 for stack in stacks) or any(prize < 0 for prize in prizes):
        raise ValueError("stacks and prizes cannot be negative")
    players = len(stacks)
    if players == 0:
        return []
    payable = list(prizes[:players]) + [0] * (players - len(prizes))
    guaranteed = min(payable)
    rest = sum(payable) - guaranteed * players
    chips = sum(stacks)
    if chips == 0:
        # Nobody has chips to weigh by: an even split is the only fair reading.
        return [float(guaranteed + Fraction(rest, players))] * players
    return [float(guaranteed + Fraction(rest) * stack / chips) for stack in stacks]


def round_to_dollars(shares: Sequence[float], total: int) -> list[int]:
    """Whole-dollar amounts for deal offers that sum exactly to `total` (R-PAY-2).

    Largest-remainder rounding: everyone gets the floor of their share, and the dollars
    left go one each to the largest fractional parts (earlier players first on equal
    parts). ValueError when the shares are negative or do not add up to the total.
    """
    if any(share < 0 for share in shares):
        raise ValueError("shares cannot be negative")
    if abs(math.fsum(shares) - total) >= 0.5:
        raise ValueError(f"shares add up to {math.fsum(shares):.2f}, not {total}")
    amounts = [math.floor(share) for share in shares]
    left = total - sum(amounts)
    by_remainder = sorted(range(len(shares)), key=lambda i: -(shares[i] - amounts[i]))
    for index in by_remainder[:left]:
        amounts[index] += 1
    return amounts


def fixed_prizes(event_type: str, league_kind: str = LeagueKind.CASH) -> tuple[int, ...]:
    """R-FIN: the fixed prizes of a final that has them, 1st first, not a share of a pool: the Top-10
    Shoot-out pays 1st $1,000 and 2nd $500 in either kind of league; a free league's Monthly Final pays
    the winner $300 and 2nd a $100 prize. () for every other game (their prizes come from the pool,
    R-PAY-1)."""
    spec = FINALS.get((event_type, league_kind))
    if spec is None or spec.paid_percent is not None:
        return ()
    return spec.fixed_prizes


def league_funded_prizes(event_type: str, league_kind: str) -> int:
    """R-FIN, R-PAY-3: how much of a final's fixed prizes the league itself funds: all of them in a
    free-to-play league (no buy-in is taken, so the $300 + $100 of its Monthly Final and the
    $1,000 + $500 of its Shoot-out come from the league); none in a cash league, whose fixed-prize
    final is funded by its guarantee (default_money) and any sponsor's money."""
    if league_kind == LeagueKind.CASH:
        return 0
    return sum(fixed_prizes(event_type, league_kind))


# The most a night's buy-in, pool share or guarantee can be, in whole dollars: more is a typing slip.
MONEY_MAX = 100_000


@dataclass(frozen=True)
class NightMoney:
    """A night's money in whole dollars (R-PAY-1, R-PAY-3): what each entry pays (`buy_in`), how
    much of it goes to the night's own prize pool (`pool_share`; the rest is split between the
    Monthly Final and Top-50 pools and the fee), and the `guarantee` added to that pool."""

    buy_in: int
    pool_share: int
    guarantee: int

    def problem(self) -> str | None:
        """Why these figures cannot be a night's (R-PAY-3: the night's share is part of the buy-in), or None."""
        if not all(0 <= amount <= MONEY_MAX for amount in (self.buy_in, self.pool_share, self.guarantee)):
            return f"amounts are whole dollars from 0 to {MONEY_MAX:,}"
        if self.pool_share > self.buy_in:
            return (f"the night's pool share (${self.pool_share}) cannot be more than the buy-in "
                    f"(${self.buy_in})")
        return None


FREE_NIGHT = NightMoney(0, 0, 0)

# House defaults for a cash league's games (R-PAY-3 leaves the split to settings; these are ours,
# not THPA's published figures): a $30 nightly buy-in with $20 to the night's pool, a $60
# high-roller game with $45 to its pool, no guarantee. A league's settings override any of them.
HOUSE_MONEY: dict[str, NightMoney] = {
    "nightly": NightMoney(buy_in=30, pool_share=20, guarantee=0),
    "highroller": NightMoney(buy_in=60, pool_share=45, guarantee=0),
}


def default_money(event_type: str, league_kind: str, settings: Mapping | None = None) -> NightMoney:
    """The money a new night of `event_type` starts with (R-PAY-3, R-FIN).

    A free-to-play league's nights are free. A cash league's nightly and high-roller games take
    HOUSE_MONEY; its finals take R-FIN's buy-in and guarantee with every entry to the pool ("$500
    plus entries"; a final with fixed prizes guarantees their sum and takes nothing from entries).
    The league's settings for the type (`buy_in`, `pool_share`, `guarantee`) override each figure.
    """
    if league_kind != LeagueKind.CASH:
        return FREE_NIGHT
    money = HOUSE_MONEY.get(event_type, FREE_NIGHT)
    if (spec := FINALS.get((event_type, league_kind))) is not None:
        money = (NightMoney(spec.buy_in, spec.buy_in, spec.guarantee) if spec.paid_percent
                 else NightMoney(spec.buy_in, 0, sum(spec.fixed_prizes)))
    chosen = (settings or {}).get(event_type, {})
    return NightMoney(**{name: int(chosen.get(name, getattr(money, name)))
                         for name in ("buy_in", "pool_share", "guarantee")})
