"""R-PAY-3, R-FIN: a Monthly Final's pool is its guarantee plus its entries plus the shares its month's
buy-ins put into the Monthly Final pool. The prize list before play, the big screen's ladder, the
settled screen and the results page pay that pool; the month-end pack's ledger shows those shares
paid out by the final and balances to the dollar; a night's shares are its own snapshot's, so
changing the share setting today leaves last month's books as they were."""
import datetime as dt
from html import unescape

import pytest

from live.payload import clock_payload
from services import league_settings, pack, pool_shares
from services.models import Entry, Event, League
from services.night_snapshot import read_night
from tests.conftest import login
from tests.fixtures.host import host_op
from tests.fixtures.months import final_night, settled_month
from tests.fixtures.rows import entries
from wiring.extensions import db

# October 2026, house shares of a nightly $30 (league.pools.HOUSE_SHARES): $20 night, $5 Monthly
# Final, $3 Top-50, $2 fee. Two nights, 6 and 4 players: $50 into October's Monthly Final pool.
OCTOBER = {3: ("Ann", "Bob", "Cara", "Dan", "Eve", "Fin"), 17: ("Ann", "Bob", "Gil", "Hal")}
SHARES = (6 + 4) * 5
GUARANTEE, BUY_IN = 500, 30


@pytest.fixture
def october(app, league, organiser):
    """A cash league's October: two settled $30 nights; Ann, Bob and Cara hold October tickets."""
    league.kind = "cash"
    db.session.commit()  # the nights' snapshots read the league as stored (services.models)
    return settled_month(league, "2026-10", OCTOBER, points=lambda position: 100 - position,
                         ticketed=("Ann", "Bob", "Cara"), buy_in=BUY_IN, pool_share=20, start_time=dt.time(19, 0))


@pytest.fixture
def final(october, league):
    """October's Monthly Final, running on 5 November: $30 all to its pool, $500 guaranteed."""
    return final_night(league, october["venue"], "monthly_final", date=dt.date(2026, 11, 5),
                       buy_in=BUY_IN, pool_share=BUY_IN, guarantee=GUARANTEE)  # for October: the month before


def books(league, month):
    return pack.month_pack(db.session.get(League, league.id), month).ledger


def test_r_pay_3_octobers_nights_build_its_monthly_final_pool(october, league):
    assert pool_shares.month_final_pool(league, "2026-10") == SHARES
    october_books = books(league, "2026-10")
    assert october_books.carried_finals == {"2026-10": SHARES} and october_books.balances  # no final in October


def test_r_pay_3_the_finals_prizes_include_the_shares_from_list_to_results(client, league, october, final):
    login(client, "host", "pw-host")
    before = unescape(client.get(f"/host/events/{final.id}/players").get_data(as_text=True))
    said = f"$500 guaranteed + $30 from each $30 entry + ${SHARES} of the month's Monthly Final shares"
    assert said in before
    assert clock_payload(final)["pool_shares"] == SHARES and clock_payload(final)["prizes"] == []
    screen = unescape(client.get(f"/events/{final.id}/screen").get_data(as_text=True))  # the big screen
    assert said in screen
    for name in ("Ann", "Bob", "Cara"):
        page = unescape(host_op(client, final, f"walk_in:{october[name].id}").get_data(as_text=True))
    pool = GUARANTEE + 3 * BUY_IN + SHARES  # $640: three players, one paid place (R-PAY-1)
    assert read_night(final).prizes == [pool] and f"Prizes ${pool:,}:" in page and f"1st ${pool:,}" in page
    assert clock_payload(final)["prizes"] == [pool] and clock_payload(final)["pool_shares"] == 0  # the ladder
    host_op(client, final, f"bust:{entries(final)['Cara'].id}")
    host_op(client, final, f"bust:{entries(final)['Bob'].id}")
    settled = unescape(host_op(client, final, "settle").get_data(as_text=True))
    assert f"Prizes paid ${pool:,}:" in settled
    db.session.expire_all()
    assert {name: e.prize for name, e in entries(final).items()} == {"Ann": pool, "Bob": 0, "Cara": 0}
    assert sum(e.prize for e in entries(final).values()) == pool  # the prizes sum to the pool
    results = unescape(client.get(f"/events/{final.id}/results").get_data(as_text=True))
    assert f"1st ${pool:,}" in results

    # November's books: October's shares come in as brought forward and go out in the final's prizes.
    november = books(league, "2026-11")
    line = next(line for line in november.lines if line.key == final.id)
    assert (line.pool, line.drawn, line.paid_out, line.left) == (pool, SHARES, pool, 0)
    assert november.brought_forward == SHARES and november.left_in_pools == 0 and not any(november.carried_finals.values())
    assert november.money_in == 3 * BUY_IN + GUARANTEE + SHARES == november.money_out and november.balances
    season = pack.season_pack(db.session.get(League, league.id), 2026).ledger
    assert not any(season.carried_finals.values()) and season.left_in_pools == 0 and season.balances  # drawn inside the season
    assert season.top50_pool == (6 + 4) * 3  # R-PAY-3: no final of R-FIN pays from the season's Top-50 pool


def test_r_pay_3_a_second_final_for_the_month_does_not_pay_its_pool_again(client, league, october, final):
    final.status = "settled"
    db.session.commit()
    again = Event(league_id=league.id, venue_id=october["venue"].id, event_type="monthly_final",
                  date=dt.date(2026, 11, 12), start_time=dt.time(19, 0), status="running", final_month="2026-10",
                  buy_in=BUY_IN, pool_share=BUY_IN, guarantee=GUARANTEE)
    db.session.add(again)
    db.session.commit()
    assert pool_shares.shares_drawn(final) == SHARES and pool_shares.shares_drawn(again) == 0
    again.status = "settled"
    db.session.commit()
    # Correcting the first final later (both settled) still pays it the pool: the first in settle order.
    assert pool_shares.shares_drawn(final) == SHARES and pool_shares.shares_drawn(again) == 0


def test_r_pay_3_a_free_leagues_final_and_other_games_draw_no_shares(league, october, final):
    assert pool_shares.shares_drawn(october["nights"][3]) == 0  # a nightly game pays its own pool only
    league.kind = "free"
    db.session.commit()
    assert pool_shares.shares_drawn(final) == 0


def test_r_pay_3_changing_the_share_today_leaves_last_months_books_as_they_were(league, october, organiser):
    before = books(league, "2026-10")
    assert before.final_pools == {"2026-10": SHARES} and before.top50_pool == 10 * 3
    league_settings.change(league, {"nightly.final_share": 9, "nightly.top50_share": 1}, organiser.id)
    db.session.commit()
    after = books(league, "2026-10")
    assert after == before  # every line, every total: the nights keep their snapshot's shares
    assert pool_shares.month_final_pool(league, "2026-10") == SHARES
    # A night created after the change takes the new shares (R-PAY-3: a change applies to later nights).
    later = Event(league_id=league.id, venue_id=october["venue"].id, event_type="nightly", date=dt.date(2026, 10, 31),
                  start_time=dt.time(19, 0), status="settled", buy_in=BUY_IN, pool_share=20)
    db.session.add(later)
    db.session.flush()
    db.session.add(Entry(event_id=later.id, member_id=october["Ann"].id, status="played", position=1, points=100,
                         prize=20))
    db.session.commit()
    assert pool_shares.shares_of(later).final_share == 9
    assert pool_shares.month_final_pool(league, "2026-10") == SHARES + 9


def test_r_pay_3_a_night_without_a_snapshot_reads_the_leagues_settings(league, october):
    night = october["nights"][3]
    night.settings = None
    league.settings = {**(league.settings or {}), "nightly": {"final_share": 7}}
    db.session.commit()
    assert pool_shares.shares_of(night).final_share == 7
