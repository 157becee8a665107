"""A night that ends and the truth on every screen (R-CLOCK-3, R-PTS, R-PAY-1/2, R-CHIP-3, R-PTS-7):
settling stops the clock and every screen shows the result; a deal's shares are what every screen
shows as paid; a deal's chip count adds up to the chips in play or the host says why; a free night's
ballot is about points only."""
import json
import re

import pytest
import schemathesis

from league.statuses import RulingKind
from live.announce import clock_message
from services.models import Event, Ruling
from tests.conftest import csrf_token
from tests.fixtures.host import bust, clock, fill, host_op, put_to_vote, tap
from tests.fixtures.phones import vote
from tests.fixtures.roster import bust_out, settle_night
from tests.fixtures.rows import entries, last_open_action, written
from wiring.extensions import db


@pytest.fixture
def won(client, night):
    """Three players, the clock started and running, two out: Player 00 has won; not settled yet."""
    fill(client, night, 3)
    assert tap(client, night, "start").status_code == 200
    bust_out(night, "Player 02")
    bust_out(night, "Player 01")
    return night


def streamed(night) -> dict:
    """The stream's message for the night as committed (what every phone and the TV hear)."""
    db.session.expire_all()
    _, message = clock_message(db.session.get(Event, night.id))
    return json.loads(message.decode().split("data: ", 1)[1])


# ---- a night that ends -------------------------------------------------------------------------------

def test_r_clock_3_settling_stops_the_clock_and_the_clock_json_says_settled(client, won):
    before = clock(client, won)
    assert before["running"] and not before["settled"] and before["result"] is None
    assert host_op(client, won, "settle").status_code == 200
    after = clock(client, won)
    assert after["settled"] and not after["running"] and not after["registration_open"]
    assert after["state"]["running_since_ms"] is None and after["index"] == before["index"]
    assert clock(client, won)["remaining_ms"] == after["remaining_ms"]  # stopped: nothing counts down
    assert [(r["position"], r["player"], r["status"]) for r in after["result"]] == [
        (1, "Player 00", "played"), (2, "Player 01", "played"), (3, "Player 02", "played")]
    # R-PTS-2: three players earn the values of places 8 to 10; R-QUAL-1: all three take tickets
    assert [r["points"] for r in after["result"]] == [200, 175, 150]
    assert all(r["monthly_final_ticket"] for r in after["result"])
    message = streamed(won)
    assert message["settled"] and message["result"] == after["result"]


def test_r_clock_3_a_settled_nights_clock_refuses_every_tap_and_changes_nothing(client, won):
    settle_night(won)
    seen = clock(client, won)["version"]
    for action in ("resume", "next", "plus", "shot"):
        refused = tap(client, won, action, version=seen)
        assert refused.status_code == 422, action
        assert "This night is settled: its clock has stopped" in refused.get_data(as_text=True)
    after = clock(client, won)
    assert after["version"] == seen and not after["running"] and after["shot"] is None


def test_r_clock_3_undoing_the_settle_reopens_the_night_without_restarting_its_levels(client, won):
    assert host_op(client, won, "settle").status_code == 200
    stopped = clock(client, won)
    assert host_op(client, won, f"undo:{last_open_action(won).id}").status_code == 200
    reopened = clock(client, won)
    assert not reopened["settled"] and reopened["result"] is None
    assert not reopened["running"] and reopened["index"] == stopped["index"]
    assert reopened["remaining_ms"] == stopped["remaining_ms"]
    assert not streamed(won)["settled"] and "result" not in streamed(won)  # the stream's lean message again
    assert tap(client, won, "resume").status_code == 200  # the host plays on when they choose
    assert clock(client, won)["running"]


def test_r_mem_2_a_correction_of_a_settled_night_leaves_its_clock_stopped(client, won):
    settle_night(won)
    stopped = clock(client, won)
    by_name = entries(won)
    data = {"reason": "Scorer's slip", f"hand-{by_name['Player 01'].id}": "1", f"hand-{by_name['Player 02'].id}": "2"}
    response = client.post(f"/host/events/{won.id}/correct", headers={"HX-Request": "true"},
                           data={"csrf_token": csrf_token(client, "/"), **data})
    assert response.status_code == 200, response.get_data(as_text=True)
    corrected = clock(client, won)
    assert corrected["settled"] and not corrected["running"] and corrected["index"] == stopped["index"]
    assert [r["player"] for r in corrected["result"]] == ["Player 00", "Player 02", "Player 01"]


def test_r_pts_the_phone_and_the_big_screen_show_the_result_instead_of_the_levels(client, phone, night):
    fill(client, night, 2)
    entries(night)["Player 01"].member.name = "O'Brien <b>"
    db.session.commit()
    bust(client, night, "O'Brien <b>")
    for page in (phone.get(f"/events/{night.id}"), phone.get(f"/events/{night.id}/screen")):
        assert 'class="clock-result" data-field="result" hidden' in page.get_data(as_text=True)
    settle_night(night)
    for url in (f"/events/{night.id}", f"/events/{night.id}/screen"):
        text = phone.get(url).get_data(as_text=True)
        assert 'class="clock is-settled' in text and 'class="clock-result" data-field="result">' in text
        assert "The night is over: results" in text
        assert "O&#39;Brien &lt;b&gt;" in text and "<b>" not in text.split("data-result-list", 1)[1]
        assert f'href="/events/{night.id}/results"' in text


def test_r_pts_1_the_screens_result_is_the_top_10_the_results_page_has_the_rest(client, night):
    fill(client, night, 12)
    for n in range(11, 0, -1):
        bust_out(night, f"Player {n:02d}")
    settle_night(night)
    result = clock(client, night)["result"]
    assert [r["position"] for r in result] == list(range(1, 11))  # nobody below 10th was paid or ticketed
    assert [r["player"] for r in result][:2] == ["Player 00", "Player 01"]
    everyone = client.get(f"/api/events/{night.id}/results").get_json()["results"]
    assert len(everyone) == 12 and everyone[:10] == result


def test_the_settled_nights_clock_answers_as_its_openapi_document_says(app, client, won):
    settle_night(won)
    schema = schemathesis.openapi.from_wsgi("/api/openapi.json", app)
    response = client.get(f"/api/events/{won.id}/clock")
    schema["/api/events/{event_id}/clock"]["GET"].validate_response(response)
    assert response.get_json()["result"]


# ---- the truth on every screen (R-PAY-2) ---------------------------------------------------------------

def test_r_pay_2_after_a_deal_every_screen_shows_the_prizes_as_paid(client, phone, night, final_three):
    assert clock(client, night)["prizes"] == [500]  # 10 × $25 + $250, one paid place (R-PAY-1)
    assert put_to_vote(client, night, {"Ann": 50_000, "Bob": 30_000, "Cat": 20_000}, "chip_chop").status_code == 200
    for name in ("Ann", "Bob", "Cat"):
        vote(final_three[name], night, True)
    paid = clock(client, night)["prizes"]
    assert paid == [250, 150, 100]  # chip-chop of $500 at 50/30/20: three places paid, not one
    assert streamed(night)["prizes"] == paid and "3rd $100" in streamed(night)["ladder"]
    roster = client.get(f"/host/events/{night.id}/players").get_data(as_text=True)
    screen = phone.get(f"/events/{night.id}/screen").get_data(as_text=True)
    for text in (roster, screen):
        assert "1st $250" in text and "2nd $150" in text and "3rd $100" in text and "1st $500" not in text
    settle_night(night)
    settled = clock(client, night)
    assert settled["prizes"] == paid
    assert [(r["player"], r["prize"]) for r in settled["result"][:3]] == [("Ann", 250), ("Bob", 150), ("Cat", 100)]


# ---- a deal's chip count (R-CHIP-3) --------------------------------------------------------------------

def test_r_chip_3_a_deal_count_that_does_not_add_up_is_refused_and_writes_nothing(client, night, final_three):
    before = written(night)
    refused = put_to_vote(client, night, {"Ann": 500_000, "Bob": 300_000, "Cat": 200_000})
    page = refused.get_data(as_text=True)
    assert refused.status_code == 422
    assert ("The counts add up to 1,000,000 chips, 900,000 more than the 100,000 in play (R-CHIP-3): count "
            "again, or give the reason for the difference.") in page
    assert written(night) == before
    # the counts typed stay in the form, and the override re-posts them with the reason asked for
    ann = entries(night)["Ann"].id
    assert f'name="deal-{ann}" inputmode="numeric" placeholder="chips" value="500000"' in page
    assert 'name="count_reason" form="override"' in page and "Put it to the vote with these counts" in page
    assert f'<input type="hidden" name="deal-{ann}" value="500000">' in page
    assert '<input type="hidden" name="op" value="deal">' in page


def test_r_chip_3_fewer_chips_than_in_play_is_refused_too(client, night, final_three):
    refused = put_to_vote(client, night, {"Ann": 40, "Bob": 30, "Cat": 20})
    assert refused.status_code == 422 and "90 chips, 99,910 fewer than the 100,000 in play" in refused.get_data(
        as_text=True)
    db.session.refresh(night)
    assert night.deal_status == "none"


def test_r_chip_3_the_hosts_reason_lets_the_count_stand_as_a_ruling_undo_keeps(client, night, final_three):
    counts = {"Ann": 45_000, "Bob": 30_000, "Cat": 20_000}
    roster = entries(night)
    fields = {f"deal-{roster[name].id}": str(chips) for name, chips in counts.items()}
    response = host_op(client, night, "deal", method="icm", count_reason="5,000 chips fell under the table", **fields)
    assert response.status_code == 200 and "0 of 3 have voted" in response.get_data(as_text=True)
    ruling = db.session.scalar(db.select(Ruling).where(Ruling.kind == RulingKind.DEAL_COUNT))
    assert (ruling.rule_id, ruling.reason, ruling.event_id) == ("R-CHIP-3", "5,000 chips fell under the table", night.id)
    assert ruling.detail == {"counted": 95_000, "in_play": 100_000, "counts": counts}
    assert host_op(client, night, f"undo:{last_open_action(night).id}").status_code == 200
    db.session.refresh(night)
    assert night.deal_status == "none"
    assert db.session.scalar(db.select(db.func.count()).select_from(Ruling)) == 1  # R-MEM-2: the record stays


def test_r_chip_3_a_reason_that_cannot_be_stored_is_refused(client, night, final_three):
    roster = entries(night)
    before = written(night)
    response = host_op(client, night, "deal", method="icm", count_reason="bad\x00reason",
                       **{f"deal-{roster[n].id}": "1000" for n in ("Ann", "Bob", "Cat")})
    assert response.status_code == 422 and "The reason contains a NUL character." in response.get_data(as_text=True)
    assert written(night) == before


# ---- a free night's ballot (R-PTS-7) -------------------------------------------------------------------

def test_r_pts_7_a_free_nights_ballot_says_it_fixes_the_points_order_and_shows_no_money(client, night):
    fill(client, night, 5)
    for name in ("Player 04", "Player 03"):
        bust(client, night, name)
    roster_page = client.get(f"/host/events/{night.id}/players").get_data(as_text=True)
    assert "No prizes tonight: the points order goes to a secret vote" in roster_page
    assert 'name="method" value="chip_chop"' in roster_page  # no split to choose
    response = put_to_vote(client, night, {"Player 00": 20_000, "Player 01": 20_000, "Player 02": 10_000},
                           "chip_chop")
    assert response.status_code == 200
    assert "the points order by the chip count" in response.get_data(as_text=True)
    ballot = client.get(f"/host/events/{night.id}/ballot/{entries(night)['Player 02'].id}").get_data(as_text=True)
    assert "this deal decides the points order" in ballot and "$" not in ballot
    # R-PTS-2/6: five players earn places 6..10's values; the two on 20,000 share 1st and 2nd
    rows = [(place, name, points) for place, name, points in
            re.findall(r'<td class="num">(\w+)</td><td>(Player \d+)</td><td class="num">[\d,]+</td>'
                                     r'<td class="num">(\d+)</td>', ballot)]
    assert rows == [("1st", "Player 00", "238"), ("1st", "Player 01", "238"), ("3rd", "Player 02", "200")]
