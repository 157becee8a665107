"""The prize pools and the ledger (R-PAY-3), with RULES.md's numbers: a final's pool is its guarantee
plus the entries and shares allocated to it (THPA: $500 plus entry fees)."""
import pytest
from hypothesis import given
from hypothesis import strategies as st

from league.payouts import NightMoney, default_money
from league.pools import (
    HOUSE_SHARES,
    EventMoney,
    Shares,
    default_shares,
    event_money,
    final_pool,
    ledger,
    night_shares,
    shares_problem,
    split_buy_in,
)


def test_r_pay_3_thpa_final_pool_is_500_plus_entry_fees():
    # R-FIN: the cash Monthly Final, $30 buy-in, pool $500 + entries: 20 entries → $1,100.
    money = default_money("monthly_final", "cash")
    assert (money.buy_in, money.pool_share, money.guarantee) == (30, 30, 500)
    assert final_pool(money.guarantee, 20, money.pool_share) == 1_100
    # The High-roller Final, $105, $500 + entries: 12 entries → $1,760; with $400 of shares → $2,160.
    hr = default_money("highroller_final", "cash")
    assert final_pool(hr.guarantee, 12, hr.pool_share) == 1_760
    assert final_pool(hr.guarantee, 12, hr.pool_share, shares_in=400) == 2_160
    with pytest.raises(ValueError):
        final_pool(500, -1, 30)


def test_r_pay_3_split_of_a_nightly_buy_in_adds_up():
    split = split_buy_in(NightMoney(30, 20, 0), HOUSE_SHARES["nightly"])
    assert (split.night, split.final, split.top50, split.fee) == (20, 5, 3, 2)
    assert split.total == 30


def test_r_pay_3_shares_more_than_the_buy_in_are_met_in_order_never_a_negative_fee():
    split = split_buy_in(NightMoney(30, 20, 0), Shares(8, 8))
    assert (split.night, split.final, split.top50, split.fee) == (20, 8, 2, 0)
    assert shares_problem(NightMoney(30, 20, 0), Shares(8, 8)) and "$36" in shares_problem(NightMoney(30, 20, 0), Shares(8, 8))
    assert shares_problem(NightMoney(30, 20, 0), Shares(5, 3)) is None
    assert shares_problem(NightMoney(30, 20, 0), Shares(-1, 0))


def test_r_pay_3_shares_come_from_settings_over_the_house_defaults():
    assert default_shares("nightly", "cash") == Shares(5, 3)
    assert default_shares("nightly", "free") == Shares(0, 0)
    assert default_shares("monthly_final", "cash") == Shares(0, 0)
    settings = {"nightly": {"final_share": 6, "top50_share": 1}, "highroller": {"top50_share": 0}}
    assert default_shares("nightly", "cash", settings) == Shares(6, 1)
    assert default_shares("highroller", "cash", settings) == Shares(5, 0)


def test_r_pay_3_a_months_ledger_balances_to_the_dollar():
    nightly = NightMoney(30, 20, 0)
    shares = Shares(5, 3)
    events = [
        # 40 players, 1 no-show who forfeits: $1,230 in; $800 pool paid; $200 to the final; $120 Top-50.
        EventMoney("a", "2026-11", nightly, shares, field=40, forfeited=1, paid_out=800),
        EventMoney("b", "2026-11", nightly, shares, field=20, paid_out=400),
        # last month's Monthly Final, held this month: $500 + 20 × $30 + October's $150 of shares.
        EventMoney("mf", "2026-11", NightMoney(30, 30, 500), Shares(), field=20, paid_out=1_250, draws="2026-10"),
    ]
    books = ledger(events, brought={"2026-10": 150})
    a, b, mf = books.lines
    assert (a.taken_in, a.pool, a.to_final, a.to_top50, a.fee) == (1_230, 800, 200, 120, 40 * 2 + 30)
    assert mf.pool == 500 + 600 + 150 and mf.drawn == 150 and mf.left == 0
    assert books.taken_in == 1_230 + 600 + 600
    assert books.guarantees == 500 and books.brought_forward == 150
    assert books.paid_out == 800 + 400 + 1_250
    assert books.final_pools == {"2026-11": 300}
    assert books.top50_pool == 180
    # November's final is held in December: its $300 is carried, with the $180 Top-50 pool.
    assert books.carried == 300 + 180
    assert books.fees == 110 + 40
    assert books.money_in == books.money_out == 2_430 + 500 + 150
    assert books.balances


def test_r_pay_3_a_night_gives_the_shares_of_its_own_snapshot():
    """The house's $30 nightly: $5 to the Monthly Final, $3 to the Top-50 pool; a night keeps what it was
    created with whatever the league's settings say now; without a snapshot, the league's now."""
    now = {"nightly": {"final_share": 9, "top50_share": 1}}
    assert night_shares("nightly", "cash", {"final_share": 5, "top50_share": 3}, now) == Shares(5, 3)
    assert night_shares("nightly", "cash", None, now) == Shares(9, 1)
    assert night_shares("nightly", "cash", {"starting_stack": 10_000}, now) == Shares(9, 1)  # no shares kept
    assert night_shares("nightly", "cash", None) == HOUSE_SHARES["nightly"]
    assert night_shares("nightly", "free", {"final_share": 5, "top50_share": 3}) == Shares(0, 0)  # free games


def test_r_pay_3_a_thpa_monthly_final_pays_500_plus_entries_plus_the_months_shares():
    """RULES.md R-PAY-3: "a final's pool is its guarantee plus the entries and shares allocated to it".
    40 nightly players at $5 each put $200 into the month's pool; its final (20 entries at $30, $500
    guaranteed) pays $1,300, and the ledger shows nothing left in the pool."""
    pool = final_pool(500, 20, 30, shares_in=40 * 5)
    assert pool == 1_300
    events = [EventMoney("n", "2026-11", NightMoney(30, 20, 0), Shares(5, 3), field=40, paid_out=800),
              EventMoney("mf", "2026-12", NightMoney(30, 30, 500), Shares(), field=20, paid_out=pool,
                         draws="2026-11")]
    books = ledger(events)
    assert (books.lines[1].drawn, books.lines[1].left, books.left_in_pools) == (200, 0, 0)
    assert books.carried == 40 * 3 and books.balances  # only the Top-50 pool is carried


def test_r_pay_3_a_final_inside_the_period_draws_its_months_pool():
    events = [EventMoney("n", "2026-11", NightMoney(30, 20, 0), Shares(5, 3), field=10, paid_out=200),
              EventMoney("mf", "2026-11", NightMoney(30, 30, 500), Shares(), field=4, paid_out=600, draws="2026-11")]
    books = ledger(events)
    assert books.lines[1].pool == 500 + 120 + 50 and books.lines[1].left == 70
    # Paid from guarantee and entries alone: the $50 of shares is still in the pool, carried.
    assert books.carried == 30 + 70 and books.balances


def test_r_pay_3_r_entry_2_re_entries_are_buy_ins_taken_in_and_split_like_any_other():
    """10 players, 3 re-entries: 13 buy-ins of $30 taken in, the night's pool 13 x $20 (what the prize
    table pays, NightSnapshot.prizes), 13 x $5 to the Monthly Final, 13 x $3 to the Top-50 pool,
    13 x $2 in fees: nothing left in the pool, nothing negative, the books balance."""
    night = EventMoney("n", "2026-11", NightMoney(30, 20, 0), Shares(5, 3), field=10, paid_out=13 * 20, buy_ins=13)
    books = ledger([night])
    line = books.lines[0]
    assert (line.taken_in, line.pool, line.left, line.to_final, line.to_top50, line.fee) == (
        390, 260, 0, 65, 39, 26)
    assert books.final_pools == {"2026-11": 65} and books.left_in_pools == 0 and books.balances
    assert EventMoney("p", "2026-11", NightMoney(30, 20, 0), Shares(), field=10).bought == 10  # one each


@given(st.lists(st.tuples(st.integers(0, 200), st.integers(0, 200), st.integers(0, 50), st.integers(0, 50),
                          st.integers(0, 1000), st.integers(0, 60), st.integers(0, 3), st.integers(0, 5000),
                          st.sampled_from([None, "2026-10", "2026-11"]), st.integers(0, 40)), max_size=12),
       st.integers(0, 5000))
def test_r_pay_3_every_ledger_balances_or_says_by_how_much_it_is_short(rows, brought):
    events = [EventMoney(i, "2026-11", NightMoney(buy, pool, guarantee), Shares(final, top), field, forfeited,
                         paid, draws, field + again)  # R-ENTRY-2: re-entries and rebuys are buy-ins too
              for i, (buy, pool, final, top, guarantee, field, forfeited, paid, draws, again) in enumerate(rows)]
    books = ledger(events, brought={"2026-10": brought})
    # Money paid with no source is said as "short by", never balanced by a negative carry.
    assert books.money_in + books.short == books.money_out
    assert books.balances == (books.short == 0)
    assert books.carried >= 0 and books.short == sum(line.short for line in books.lines)
    for _event, line in zip(events, books.lines):
        assert line.taken_in == line.to_pool + line.to_final + line.to_top50 + line.fee
        assert line.left >= 0 and line.short >= 0 and not (line.left and line.short)
        assert line.pool - line.left + line.short == line.paid_out


@pytest.mark.parametrize("event_type", ["nightly", "highroller", "monthly_final", "highroller_final", "top10_shootout"])
def test_r_pay_3_the_house_defaults_split_every_buy_in_exactly(event_type):
    money, shares = default_money(event_type, "cash"), default_shares(event_type, "cash")
    assert shares_problem(money, shares) is None
    split = split_buy_in(money, shares)
    assert split.total == money.buy_in and split.fee >= 0


def test_r_pay_3_r_fin_a_free_leagues_fixed_prizes_are_the_leagues_own_money():
    # The free league's Shoot-out ($1,000 + $500) and Monthly Final ($300 + a $100 prize) take no buy-in.
    shootout = event_money("s", "top10_shootout", "2026-12", Shares(), NightMoney(0, 0, 0), 10, 0, 1_500, None,
                           league_kind="free")
    final = event_money("m", "monthly_final", "2026-12", Shares(), NightMoney(0, 0, 0), 30, 0, 400, "2026-11",
                        league_kind="free")
    books = ledger([shootout, final])
    assert (books.funded, books.carried, books.short, books.balances) == (1_900, 0, 0, True)
    assert [line.funded for line in books.lines] == [1_500, 400]


def test_r_pay_3_a_prize_with_no_source_is_short_never_a_negative_carry():
    # A cash league's Shoot-out booked with no guarantee: ten $55 entries all fee, $1,500 paid from nowhere.
    shootout = event_money("s", "top10_shootout", "2026-12", Shares(), NightMoney(55, 0, 0), 10, 0, 1_500, None)
    books = ledger([shootout])
    assert (books.short, books.carried, books.balances, books.lines[0].left) == (1_500, 0, False, 0)
    assert books.short_lines == books.lines
    # A named sponsor's $1,000 and a $500 guarantee give the prizes a source.
    sponsored = event_money("s", "top10_shootout", "2026-12", Shares(), NightMoney(55, 0, 500), 10, 0, 1_500, None,
                            sponsor=1_000)
    books = ledger([sponsored])
    assert (books.sponsors, books.guarantees, books.short, books.balances) == (1_000, 500, 0, True)
