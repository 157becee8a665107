"""R-PAY-3, R-FIN: every dollar of the organiser's month has a source. A free league's finals pay the
fixed prizes R-FIN gives them (Monthly Final $300 and a $100 prize, Shoot-out $1,000 and $500) as prizes
the league funds; a prize nothing pays for is "short by", never a negative carry under a green tick; a
final's sponsor is named in the ledger; the results CSV's optional buy_in and prize columns bring an
imported cash night's money into the pools."""
import datetime as dt
from html import unescape

import pytest

from services import pack
from services.models import Event, League
from services.night_snapshot import read_night
from tests.conftest import csrf_token, login
from tests.fixtures.host import host_op
from tests.fixtures.months import final_night, settled_final
from tests.fixtures.pages import text
from tests.fixtures.results import HEADER
from tests.fixtures.rows import entries
from tests.web.test_organiser_data import confirm, snapshot, token_of, upload
from wiring.extensions import db

DECEMBER = "/organiser/harbour-league/months/2026-12"


def books(league, month="2026-12"):
    return pack.month_pack(db.session.get(League, league.id), month).ledger


def test_r_fin_a_free_monthly_final_pays_300_and_a_100_prize_from_list_to_results(client, league, november):
    final = final_night(league, november["venue"], "monthly_final")
    assert read_night(final).prizes == [300, 100]
    login(client, "host", "pw-host")
    host_op(client, final, f"walk_in:{november['Ann'].id}")
    host_op(client, final, f"walk_in:{november['Bob'].id}", reason="Ticket lost, organiser vouched")
    host_op(client, final, f"bust:{entries(final)['Bob'].id}")
    settled = unescape(host_op(client, final, "settle").get_data(as_text=True))
    assert "Prizes paid $400:" in settled
    db.session.expire_all()
    assert {name: e.prize for name, e in entries(final).items()} == {"Ann": 300, "Bob": 100}


def test_r_pay_3_r_fin_a_free_leagues_finals_are_prizes_the_league_funds(client, league, organiser, november):
    venue, ann, bob = november["venue"], november["Ann"], november["Bob"]
    settled_final(league, venue, "top10_shootout", [(ann, 1_000), (bob, 500)])
    settled_final(league, venue, "monthly_final", [(bob, 300), (ann, 100)], date=dt.date(2026, 12, 6))
    ledger = books(league)
    assert (ledger.funded, ledger.carried, ledger.short, ledger.balances) == (1_900, 0, 0, True)
    login(client, "organiser", "pw-organiser")
    page = text(client.get(DECEMBER))
    assert "Prizes the league funds" in page and "$1,900" in page and "✓ Balances to the dollar" in page
    assert "−$" not in page and "-$" not in page  # no negative carry anywhere
    csv = client.get(f"{DECEMBER}/ledger.csv").get_data(as_text=True)
    assert "league_funded" in csv.splitlines()[0] and ",1500," in csv


def test_r_pay_3_a_prize_with_no_source_is_short_never_balanced(client, league, organiser, november):
    league.kind = "cash"
    db.session.commit()
    # A cash Shoot-out booked with its guarantee taken off: ten $55 buy-ins, all fee, pay nothing.
    settled_final(league, november["venue"], "top10_shootout", [(november["Ann"], 1_000), (november["Bob"], 500)],
                  buy_in=55, pool_share=0, guarantee=0)
    ledger = books(league)
    assert (ledger.short, ledger.balances) == (1_500, False) and ledger.carried >= 0
    login(client, "organiser", "pw-organiser")
    page = text(client.get(DECEMBER))
    assert "✗ Short by $1,500" in page and "✓ Balances" not in page and "short by $1,500" in page


def test_r_pay_3_a_finals_sponsor_is_named_in_its_prizes_and_the_ledger(client, league, organiser, november):
    league.kind = "cash"
    db.session.commit()
    settled_final(league, november["venue"], "top10_shootout", [(november["Ann"], 1_000), (november["Bob"], 500)],
                  buy_in=55, pool_share=0, guarantee=500, sponsor="Harbour Brewing", sponsor_money=1_000)
    ledger = books(league)
    assert (ledger.sponsors, ledger.short, ledger.balances) == (1_000, 0, True)
    login(client, "organiser", "pw-organiser")
    page = text(client.get(DECEMBER))
    assert "Sponsors' money" in page and "Harbour Brewing: $1,000" in page
    assert "$1,000 from Harbour Brewing" in page


def night_form(client, venue, **fields):
    data = {"csrf_token": csrf_token(client, "/"), "venue": str(venue.id), "date": "2026-12-20",
            "start_time": "19:00", "host": "", "template": "thpa_nightly", **fields}
    return client.post("/organiser/harbour-league/nights", headers={"HX-Request": "true"}, data=data)


def test_r_pay_3_the_organiser_books_a_final_with_its_sponsor(client, league, organiser, rose):
    login(client, "organiser", "pw-organiser")
    response = night_form(client, rose, event_type="top10_shootout", host=str(organiser.id),
                          template="top10_shootout", sponsor="Harbour Brewing", sponsor_money="1,000")
    assert response.status_code == 200, text(response)
    event = db.session.scalar(db.select(Event))
    assert (event.sponsor, event.sponsor_money) == ("Harbour Brewing", 1_000)


@pytest.mark.parametrize("bad,said", [
    ({"sponsor": "", "sponsor_money": "200"}, "Name the sponsor whose money it is."),
    ({"sponsor": "Brewery", "sponsor_money": "-5"}, "The sponsor's money is whole dollars"),
    ({"sponsor": "Brew\u0000ery", "sponsor_money": "5"}, "the sponsor"),
])
def test_r_pay_3_a_sponsor_without_a_name_or_whole_dollars_is_refused(client, league, organiser, rose, bad, said):
    login(client, "organiser", "pw-organiser")
    response = night_form(client, rose, event_type="monthly_final", host=str(organiser.id), **bad)
    assert response.status_code == 422 and said in text(response)
    assert db.session.scalar(db.select(db.func.count()).select_from(Event)) == 0


def test_r_pay_3_a_nightly_game_takes_no_sponsor_line(client, league, organiser, rose):
    login(client, "organiser", "pw-organiser")
    assert night_form(client, rose, event_type="nightly", host=str(organiser.id), sponsor="Brewery",
                      sponsor_money="200").status_code == 200
    event = db.session.scalar(db.select(Event))
    assert (event.sponsor, event.sponsor_money) == (None, 0)


MONEY_HEADER = HEADER.rstrip("\n") + ",buy_in,prize\n"
CASH_NIGHT = MONEY_HEADER + "".join(
    f"2026-12-03,19:00,Rose,nightly,{p},{name},,30,{prize}\n"
    for p, (name, prize) in enumerate([("Ann", 100), ("Bob", 0), ("Cat", 0), ("Dan", 0), ("Eve", 0)], 1))


def test_r_pay_3_an_imported_cash_night_feeds_the_pools_and_the_ledger(client, league, organiser):
    league.kind = "cash"
    db.session.commit()
    login(client, "organiser", "pw-organiser")
    assert confirm(client, token_of(upload(client, CASH_NIGHT).get_data(as_text=True))).status_code == 200
    event = db.session.scalar(db.select(Event))
    assert (event.buy_in, event.pool_share) == (30, 20)  # the league's pool share for a nightly $30
    assert entries(event)["Ann"].prize == 100
    ledger = books(league)
    # Five $30 buy-ins: $100 to the night's pool (paid to Ann), $25 Monthly Final, $15 Top-50, $10 fees.
    assert (ledger.taken_in, ledger.paid_out, ledger.final_pools, ledger.top50_pool, ledger.fees) == (
        150, 100, {"2026-12": 25}, 15, 10)
    assert ledger.balances


@pytest.mark.parametrize("body,said", [
    (MONEY_HEADER + "2026-12-03,19:00,Rose,nightly,1,Ann,,30,\n2026-12-03,19:00,Rose,nightly,2,Bob,,40,\n",
     "line 3: buy_in $40 differs from $30 given for the same event on line 2"),
    (MONEY_HEADER + "2026-12-03,19:00,Rose,nightly,,Ann,no_show,30,20\n2026-12-03,19:00,Rose,nightly,1,Bob,,30,\n",
     "line 2: a no_show row takes no prize"),
    (MONEY_HEADER + "2026-12-03,19:00,Rose,nightly,1,Ann,dq,30,20\n",
     "line 2: a dq row takes no prize"),
    (MONEY_HEADER + "2026-12-03,19:00,Rose,nightly,1,Ann,,thirty,\n", "line 2: bad buy_in 'thirty'"),
    (MONEY_HEADER + "2026-12-03,19:00,Rose,nightly,1,Ann,,30,12.50\n", "line 2: bad prize '12.50'"),
])
def test_r_pay_3_bad_money_in_a_results_file_is_refused_whole(client, league, organiser, body, said):
    league.kind = "cash"
    db.session.commit()
    login(client, "organiser", "pw-organiser")
    before = snapshot()
    response = upload(client, body)
    assert response.status_code == 422 and said in unescape(response.get_data(as_text=True))
    assert snapshot() == before


def test_r_pay_3_a_free_league_refuses_an_imported_buy_in(client, league, organiser):
    login(client, "organiser", "pw-organiser")
    page = unescape(upload(client, CASH_NIGHT).get_data(as_text=True))
    assert "line 2: 2026-12-03 19:00 at Rose has a $30 buy-in, but Harbour League is a free-to-play league" in page
    assert 'name="token"' not in page
