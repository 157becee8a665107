"""Deals at the final table (R-PTS-7, R-PAY-2): a chip count, an offer, an anonymous unanimous ballot."""

from tests.conftest import csrf_token
from tests.fixtures.host import host_op, put_to_vote
from tests.fixtures.phones import vote
from tests.fixtures.rows import entries
from wiring.extensions import db


def test_r_pay_2_unanimous_yes_fixes_positions_and_prizes(client, night, final_three):
    response = put_to_vote(client, night, {"Ann": 50_000, "Bob": 30_000, "Cat": 20_000}, "chip_chop")
    assert response.status_code == 200 and "0 of 3 have voted" in response.get_data(as_text=True)
    page = final_three["Ann"].get(f"/events/{night.id}/deal").get_data(as_text=True)
    assert "Yes, deal" in page and "50,000" in page
    assert vote(final_three["Ann"], night, True).status_code == 303
    again = vote(final_three["Ann"], night, True)
    assert again.status_code == 422 and "already voted" in again.get_data(as_text=True)
    assert "1 of 3 have voted" in client.get(f"/host/events/{night.id}/players").get_data(as_text=True)
    vote(final_three["Bob"], night, True)
    vote(final_three["Cat"], night, True)
    after = entries(night)
    # R-PTS-7: the chip count fixes the points positions
    assert [after[n].position for n in ("Ann", "Bob", "Cat")] == [1, 2, 3]
    # 10 entrants: 1 paid place (R-PAY-1), $500 pool; chip-chop of the unpaid $500 → 250/150/100
    assert [after[n].prize for n in ("Ann", "Bob", "Cat")] == [250, 150, 100]
    db.session.refresh(night)
    assert night.deal_status == "agreed"
    assert host_op(client, night, "settle").status_code == 200
    settled = entries(night)
    assert [settled[n].points for n in ("Ann", "Bob", "Cat")] == [750, 550, 400]
    assert [settled[n].prize for n in ("Ann", "Bob", "Cat")] == [250, 150, 100]


def test_r_pay_2_one_no_voids_the_deal(client, night, final_three):
    put_to_vote(client, night, {"Ann": 50_000, "Bob": 30_000, "Cat": 20_000})
    vote(final_three["Ann"], night, True)
    vote(final_three["Bob"], night, False)
    db.session.refresh(night)
    assert night.deal_status == "void"
    assert {e.status for n, e in entries(night).items() if n in ("Ann", "Bob", "Cat")} == {"playing"}
    assert "The deal is off" in final_three["Cat"].get(f"/events/{night.id}/deal").get_data(as_text=True)
    assert vote(final_three["Cat"], night, True).status_code == 422


def test_ballot_is_only_for_the_remaining_players(app, client, night, final_three):
    put_to_vote(client, night, {"Ann": 50_000, "Bob": 30_000, "Cat": 20_000})
    stranger = app.test_client()
    assert stranger.post(f"/events/{night.id}/deal", data={"csrf_token": csrf_token(stranger), "vote": "no"}
                         ).status_code == 403
    assert final_three["Ann"].post(f"/events/{night.id}/deal", data={"vote": "no"}).status_code == 400
    db.session.refresh(night)
    assert night.deal_status == "open"
    # the host can call it off
    assert host_op(client, night, "deal_off").status_code == 200


def test_a_deal_needs_every_count(client, night, final_three):
    missing = put_to_vote(client, night, {"Ann": 50_000, "Bob": 30_000})
    assert missing.status_code == 422 and "Count every remaining player" in missing.get_data(as_text=True)
    assert put_to_vote(client, night, {"Ann": 5, "Bob": 3, "Cat": 2}, method="halves").status_code == 422
    db.session.refresh(night)
    assert night.deal_status == "none"
