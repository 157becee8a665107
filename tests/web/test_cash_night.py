"""A cash night set up and paid exactly by the rules: the night form's buy-in, pool share and
guarantee (R-PAY-3 defaults, whole dollars, bounded), the prize list before and during play and
after settling (R-PAY-1), a night edited or cancelled before play, a night booked twice warned of."""
import datetime as dt
import re

import pytest

from league.payouts import HOUSE_MONEY, MONEY_MAX
from services.models import Event
from tests.conftest import csrf_token, login
from tests.fixtures.cash import as_cash_night
from tests.fixtures.host import DAY, fill, host_op, new_night, the_night
from tests.fixtures.roster import bust_out
from tests.fixtures.rows import entries
from wiring.extensions import db


@pytest.fixture
def cash_league(league):
    league.kind = "cash"
    db.session.commit()
    return league


def value_of(page: str, name: str) -> str | None:
    found = re.search(rf'name="{name}"[^>]*value="([^"]*)"', page) or re.search(rf'value="([^"]*)"[^>]*name="{name}"', page)
    return found.group(1) if found else None


def test_r_pay_3_a_cash_leagues_form_has_the_money_defaulted_from_the_house(client, cash_league, rose):
    login(client, "host", "pw-host")
    page = client.get("/host/").get_data(as_text=True)
    house = HOUSE_MONEY["nightly"]
    assert (value_of(page, "buy_in"), value_of(page, "pool_share"), value_of(page, "guarantee")) == (
        str(house.buy_in), str(house.pool_share), str(house.guarantee))
    assert new_night(client, rose, buy_in="30", pool_share="20", guarantee="100").status_code == 303
    night = the_night()
    assert (night.buy_in, night.pool_share, night.guarantee) == (30, 20, 100)


def test_r_pay_3_the_leagues_settings_for_the_type_come_first(client, cash_league, rose):
    cash_league.settings = {"nightly": {"buy_in": 40, "pool_share": 30, "guarantee": 200}}
    db.session.commit()
    login(client, "organiser", "pw-organiser")
    page = client.get(f"/organiser/{cash_league.slug}/nights").get_data(as_text=True)
    assert (value_of(page, "buy_in"), value_of(page, "pool_share"), value_of(page, "guarantee")) == ("40", "30", "200")
    # a field left blank takes the league's figure for the chosen type
    assert new_night(client, rose, buy_in="", pool_share="", guarantee="").status_code == 303
    night = the_night()
    assert (night.buy_in, night.pool_share, night.guarantee) == (40, 30, 200)


def test_a_free_leagues_form_has_no_money_and_its_nights_are_free(client, league, rose):
    login(client, "host", "pw-host")
    page = client.get("/host/").get_data(as_text=True)
    assert 'name="buy_in"' not in page and "Money" not in page
    assert new_night(client, rose, buy_in="30", pool_share="20").status_code == 303  # ignored: no such field
    night = the_night()
    assert (night.buy_in, night.pool_share, night.guarantee) == (0, 0, 0)


@pytest.mark.parametrize("money, reason", [
    ({"buy_in": "30", "pool_share": "35"}, "cannot be more than the buy-in"),
    ({"buy_in": "-5"}, "The buy-in is whole dollars from 0 to 100,000"),
    ({"buy_in": "12.50"}, "The buy-in is whole dollars"),
    ({"guarantee": str(MONEY_MAX + 1)}, "The guarantee is whole dollars from 0 to 100,000"),
    ({"pool_share": "lots"}, "pool share is whole dollars"),
])
def test_r_pay_1_bad_money_is_refused_on_the_form_with_the_reason(client, cash_league, rose, money, reason):
    login(client, "host", "pw-host")
    response = new_night(client, rose, **{"buy_in": "30", "pool_share": "20", "guarantee": "0", **money})
    assert response.status_code == 422
    page = response.get_data(as_text=True)
    assert reason in page and 'aria-invalid="true"' in page
    assert the_night() is None


def test_thousands_commas_are_whole_dollars(client, cash_league, rose):
    login(client, "host", "pw-host")
    assert new_night(client, rose, buy_in="1,000", pool_share="800", guarantee="2,500").status_code == 303
    night = the_night()
    assert (night.buy_in, night.pool_share, night.guarantee) == (1000, 800, 2500)


def test_the_same_night_booked_twice_is_warned_of_then_created_anyway(client, cash_league, rose):
    login(client, "host", "pw-host")
    assert new_night(client, rose).status_code == 303
    again = new_night(client, rose)
    assert again.status_code == 409
    page = again.get_data(as_text=True)
    assert "already has a night on Thu 24 Dec 2026 at 19:00" in page and "Create anyway" in page
    assert db.session.scalar(db.select(db.func.count()).select_from(Event)) == 1
    assert new_night(client, rose, anyway="y").status_code == 303
    assert db.session.scalar(db.select(db.func.count()).select_from(Event)) == 2
    # another start time is another night
    assert new_night(client, rose, start_time="21:00").status_code == 303


def test_the_organiser_is_warned_of_the_same_night_too(client, cash_league, rose):
    login(client, "organiser", "pw-organiser")
    host_id = db.session.scalar(db.select(Event.host_id)) or 2
    data = {"csrf_token": csrf_token(client, f"/organiser/{cash_league.slug}/nights"), "venue": str(rose.id),
            "date": DAY, "start_time": "19:00", "event_type": "nightly", "template": "thpa_nightly",
            "host": str(host_id)}
    assert client.post(f"/organiser/{cash_league.slug}/nights", data=data).status_code == 200
    again = client.post(f"/organiser/{cash_league.slug}/nights", data=data)
    assert again.status_code == 409 and "Create anyway" in again.get_data(as_text=True)


def test_a_night_is_edited_then_cancelled_before_play(client, cash_league, rose):
    login(client, "host", "pw-host")
    new_night(client, rose)
    night = the_night()
    page = client.get(f"/host/events/{night.id}/edit").get_data(as_text=True)
    assert value_of(page, "buy_in") == "30" and "Cancel night" in page
    bad = client.post(f"/host/events/{night.id}/edit", data={
        "csrf_token": csrf_token(client, f"/host/events/{night.id}/edit"), "venue": str(rose.id), "date": DAY,
        "start_time": "20:00", "event_type": "nightly", "buy_in": "20", "pool_share": "25", "guarantee": "0"})
    assert bad.status_code == 422 and "cannot be more than the buy-in" in bad.get_data(as_text=True)
    good = client.post(f"/host/events/{night.id}/edit", data={
        "csrf_token": csrf_token(client, f"/host/events/{night.id}/edit"), "venue": str(rose.id), "date": DAY,
        "start_time": "20:00", "event_type": "nightly", "buy_in": "35", "pool_share": "25", "guarantee": "150"})
    assert good.status_code == 303
    night = the_night()
    assert (night.start_time, night.buy_in, night.pool_share, night.guarantee) == (dt.time(20, 0), 35, 25, 150)
    gone = client.post(f"/host/events/{night.id}/cancel",
                       data={"csrf_token": csrf_token(client, f"/host/events/{night.id}/edit"), "reason": "Pub shut"})
    assert gone.status_code == 303 and gone.headers["Location"] == "/host/"
    assert the_night().status == "cancelled"  # kept on the record (tests/web/test_cancel_night.py)


def test_once_the_clock_has_started_edit_and_cancel_are_refused_with_the_reason(client, cash_league, night):
    login(client, "organiser", "pw-organiser")
    night.clock_started = True
    db.session.commit()
    page = client.get(f"/host/events/{night.id}/edit")
    assert page.status_code == 409 and "clock has started" in page.get_data(as_text=True)
    token = csrf_token(client, f"/organiser/{cash_league.slug}/nights")
    edit = client.post(f"/host/events/{night.id}/edit", data={"csrf_token": token, "venue": str(night.venue_id),
                                                              "date": DAY, "event_type": "nightly", "buy_in": "5"})
    assert edit.status_code == 409 and "cannot be edited or cancelled" in edit.get_data(as_text=True)
    cancel = client.post(f"/host/events/{night.id}/cancel", data={"csrf_token": token})
    assert cancel.status_code == 409
    db.session.expire_all()
    assert db.session.get(Event, night.id).buy_in == 0


def test_another_leagues_host_cannot_edit_a_night(client, cash_league, rose, app):
    from services import leagues
    from services.models import User
    other = leagues.create_league("Other League", "cash")
    db.session.flush()
    stranger = User(username="stranger", display_name="S", role="host", league_id=other.id)
    stranger.set_password("pw-stranger")
    db.session.add(stranger)
    db.session.commit()
    login(client, "host", "pw-host")
    new_night(client, rose)
    night = the_night()
    client.get("/logout")
    login(client, "stranger", "pw-stranger")
    assert client.get(f"/host/events/{night.id}/edit").status_code == 403


# ---- the prize list before and during play, and after settling (R-PAY-1) ----

def ladder(page: str) -> str | None:
    found = re.search(r'<p class="prize-ladder"[^>]*>(.*?)</p>', page, re.S)
    return " ".join(re.sub(r"<[^>]+>", " ", found.group(1)).split()) if found else None


@pytest.fixture
def cash_night(cash_league, night):
    """Tonight's running cash night: $30 buy-in, $20 of it to the night's pool, $100 guaranteed."""
    return as_cash_night(night, 30, 20, 100)


def test_r_pay_1_the_prize_list_grows_as_entries_come_in(client, cash_night):
    from live.payload import clock_payload
    login(client, "host", "pw-host")
    roster = client.get(f"/host/events/{cash_night.id}/players").get_data(as_text=True)
    assert ladder(roster) == "Prizes: $100 guaranteed + $20 from each $30 entry"  # before anyone sits down
    fill(client, cash_night, 9)
    db.session.expire_all()
    assert clock_payload(cash_night)["prizes"] == [280]  # 100 + 9 × 20, one paid place
    for n in range(20):  # 20 late entrants: a field of 29, two paid places
        assert host_op(client, cash_night, "join", name=f"Late {n:02d}", adult="yes").status_code == 200
    db.session.expire_all()
    prizes = clock_payload(cash_night)["prizes"]
    assert prizes == [442, 238] and sum(prizes) == 100 + 29 * 20  # 65/35 of 680, the odd dollar to 1st
    for path in (f"/host/events/{cash_night.id}/players", f"/events/{cash_night.id}", f"/events/{cash_night.id}/screen"):
        assert ladder(client.get(path).get_data(as_text=True)) == "Prizes $680: 1st $442 · 2nd $238", path


def test_a_free_night_shows_no_prizes(client, night):
    fill(client, night, 12)
    for path in (f"/host/events/{night.id}/players", f"/events/{night.id}", f"/events/{night.id}/screen"):
        assert ladder(client.get(path).get_data(as_text=True)) is None, path


def test_r_pay_1_settled_prizes_sum_to_the_pool_and_show_on_results_and_the_roster(client, cash_night):
    fill(client, cash_night, 20)
    for n in range(19, 0, -1):  # Player 19 out first … Player 00 wins
        bust_out(cash_night, f"Player {n:02d}")
    settled = host_op(client, cash_night, "settle")
    assert settled.status_code == 200
    after = entries(cash_night)
    assert (after["Player 00"].prize, after["Player 01"].prize) == (325, 175)  # 65/35 of 100 + 20 × 20
    assert sum(e.prize for e in after.values()) == 500
    roster = client.get(f"/host/events/{cash_night.id}/players").get_data(as_text=True)
    assert ladder(roster) == "Prizes paid $500: 1st $325 · 2nd $175"
    row = re.search(r"<li><span>1\. <a [^>]*>Player 00</a>.*?</li>", roster, re.S).group(0)
    assert "Final ticket" in row and f"{after['Player 00'].points} pts" in row and "$325" in row
    results = client.get(f"/events/{cash_night.id}/results").get_data(as_text=True)
    assert ladder(results) == "Prizes paid $500: 1st $325 · 2nd $175"
    assert ">Prize</th>" in results and "$325" in results and "$175" in results


def test_a_free_nights_results_have_no_prize_column(client, night):
    fill(client, night, 3)
    for n in (2, 1):
        bust_out(night, f"Player {n:02d}")
    assert host_op(client, night, "settle").status_code == 200
    results = client.get(f"/events/{night.id}/results").get_data(as_text=True)
    assert ">Prize</th>" not in results and ladder(results) is None
