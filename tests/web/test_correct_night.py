"""A settled night corrected and settled again (R-PTS-5..7, R-PAY-1, R-QUAL-1/2, R-MEM-2): the host of
the night or an organiser fixes a finishing order, a shared hand, a wrong disqualification or
no-show; points, prizes and the month's tickets follow; one journalled action Undo takes back,
recorded as a ruling; an impossible correction is refused with the reason, nothing written."""
import html

import pytest

from services.models import Action, Entry, Event, Member, Ruling, Ticket, User, utcnow
from tests.conftest import csrf_token, login
from tests.fixtures.cash import as_cash_night, cash_night_with_phones
from tests.fixtures.host import fill, host_op, put_to_vote
from tests.fixtures.phones import vote
from tests.fixtures.roster import bust_out, check_in_players, settle_night
from tests.fixtures.rows import entries
from wiring.extensions import db


@pytest.fixture
def settled_seven(client, night):
    """Seven players: 00 and 01 out alone, 02 and 03 in one hand (03 had more), 04 and 05 alone,
    06 wins; settled (the top 5 hold this month's Monthly Final tickets, R-QUAL-1)."""
    fill(client, night, 7)
    bust_out(night, "Player 00")
    bust_out(night, "Player 01")
    bust_out(night, "Player 02", "Player 03", stacks=[1000, 3000])
    bust_out(night, "Player 04")
    bust_out(night, "Player 05")
    settle_night(night)
    return night


def correct(client, night, reason="Scorer's slip", **fields):
    data = {"csrf_token": csrf_token(client, "/"), "reason": reason}
    by_name = entries(night)
    for key, value in fields.items():
        what, _, name = key.partition("__")
        data[f"{what}-{by_name[name.replace('_', ' ')].id}"] = value
    return client.post(f"/host/events/{night.id}/correct", data=data, headers={"HX-Request": "true"})


def state(night):
    db.session.expire_all()
    rows = {name: (e.status, e.position, e.points, e.prize) for name, e in entries(night).items()}
    tickets = sorted(t.member.name for t in db.session.scalars(db.select(Ticket)))
    return rows, tickets, db.session.scalar(db.select(db.func.count()).select_from(Action))


def test_the_correction_page_shows_the_order_with_hands_numbered_from_the_first_out(client, settled_seven):
    page = client.get(f"/host/events/{settled_seven.id}/correct").get_data(as_text=True)
    assert "Correct and settle again" in page and 'aria-current="page">Correct</a>' in page
    e = entries(settled_seven)
    # Hands numbered 1.. in elimination order: 00 → 1, 01 → 2, 02 and 03 → 3 (stacks kept), 04 → 4, 05 → 5.
    assert f'name="hand-{e["Player 00"].id}" inputmode="numeric" autocomplete="off" class="chips"\n            value="1"' in page
    assert f'name="hand-{e["Player 03"].id}" inputmode="numeric" autocomplete="off" class="chips"\n            value="3"' in page
    assert f'name="stack-{e["Player 03"].id}" inputmode="numeric" autocomplete="off" class="chips"\n            value="3000"' in page
    assert f'name="hand-{e["Player 06"].id}" inputmode="numeric" autocomplete="off" class="chips"\n            value=""' in page


def test_r_pts_5_a_swapped_order_is_corrected_and_points_and_tickets_follow(client, settled_seven):
    """R-PTS-5, R-QUAL-1, R-MEM-2: 00 really outlasted 05 (the scorer swapped them): 00 finishes
    2nd, 05 7th; points are worked out again, 00 now holds a ticket and 05 does not."""
    before_rows, before_tickets, _ = state(settled_seven)
    assert "Player 00" not in before_tickets and "Player 05" in before_tickets
    response = correct(client, settled_seven, hand__Player_00="5", hand__Player_05="1")
    assert response.status_code == 200, response.get_data(as_text=True)
    assert "Corrected and settled again" in html.unescape(response.get_data(as_text=True))
    rows, tickets, _ = state(settled_seven)
    assert rows["Player 00"][1] == 2 and rows["Player 05"][1] == 7 and rows["Player 06"][1] == 1
    assert rows["Player 00"][2] == before_rows["Player 05"][2] and rows["Player 05"][2] == before_rows["Player 00"][2]
    assert "Player 00" in tickets and "Player 05" not in tickets
    ruling = db.session.scalar(db.select(Ruling).where(Ruling.kind == "result_correction"))
    host = db.session.scalar(db.select(User).where(User.username == "host"))
    assert ruling.user_id == host.id and ruling.reason == "Scorer's slip" and ruling.rule_id == "R-MEM-2"
    assert "Player 00: out in hand 1 → out in hand 5" in ruling.detail["changes"]
    action = db.session.scalar(db.select(Action).order_by(Action.id.desc()))
    assert action.kind == "correct" and action.summary.startswith("Results corrected: Player 05")
    page = client.get(f"/host/events/{settled_seven.id}/correct").get_data(as_text=True)
    assert "Scorer&#39;s slip" in page and "Undo" in page


def test_r_pts_6_a_shared_hand_corrected_by_its_stacks(client, settled_seven):
    """R-PTS-6: the stacks were the other way round: 02 had more chips at the start of the hand."""
    response = correct(client, settled_seven, stack__Player_02="5000")
    assert response.status_code == 200, response.get_data(as_text=True)
    rows, _, _ = state(settled_seven)
    assert (rows["Player 02"][1], rows["Player 03"][1]) == (4, 5)
    response = correct(client, settled_seven, stack__Player_02="3000")
    rows, _, _ = state(settled_seven)
    assert (rows["Player 02"][1], rows["Player 03"][1]) == (4, 4)  # equal stacks share (R-PTS-6)


def test_r_pts_5_a_wrong_no_show_and_a_missed_disqualification(client, settled_seven):
    """R-PTS-5, R-LATE-3: a player marked played was a no-show (the field shrinks, everyone out
    before them moves up); a player is disqualified after hand 4 (0 points)."""
    response = correct(client, settled_seven, status__Player_00="no_show", hand__Player_04="", status__Player_04="dq")
    assert response.status_code == 422  # a disqualification needs its place in the order
    assert "give the disqualification its place" in response.get_data(as_text=True)
    response = correct(client, settled_seven, status__Player_00="no_show", status__Player_04="dq")
    assert response.status_code == 200, response.get_data(as_text=True)
    rows, _, _ = state(settled_seven)
    assert rows["Player 00"][:3] == ("no_show", None, 0)
    assert rows["Player 01"][1] == 6 and rows["Player 04"][:3] == ("dq", 3, 0)


def test_undo_takes_the_correction_back_and_the_ruling_stays(client, settled_seven):
    """R-MEM-2: Undo puts the results, points and tickets back; the ruling stays on the record."""
    before_rows, before_tickets, _ = state(settled_seven)
    correct(client, settled_seven, hand__Player_00="5", hand__Player_05="1")
    action = db.session.scalar(db.select(Action).order_by(Action.id.desc()))
    response = client.post(f"/host/events/{settled_seven.id}/correct/undo", headers={"HX-Request": "true"},
                           data={"csrf_token": csrf_token(client, "/"), "action": str(action.id)})
    assert response.status_code == 200 and "Correction undone" in response.get_data(as_text=True)
    rows, tickets, _ = state(settled_seven)
    assert rows == before_rows and tickets == before_tickets
    assert db.session.get(Action, action.id).undone_at is not None
    assert db.session.scalar(db.select(db.func.count()).select_from(Ruling).where(
        Ruling.kind == "result_correction")) == 1
    again = client.post(f"/host/events/{settled_seven.id}/correct/undo", headers={"HX-Request": "true"},
                        data={"csrf_token": csrf_token(client, "/"), "action": str(action.id)})
    assert again.status_code == 422 and "no longer that correction" in again.get_data(as_text=True)


@pytest.mark.parametrize(("fields", "reason", "said"), [
    ({"hand__Player_05": ""}, "typo", "2 players would be left with no finishing position"),
    ({"hand__Player_00": "3"}, "typo", "give each one&#39;s chips at the start of the hand"),
    ({"hand__Player_00": "x"}, "typo", "give the hand they went out in as a whole number"),
    ({"hand__Player_00": "0"}, "typo", "give the hand they went out in as a whole number"),
    ({"stack__Player_00": "-5"}, "typo", "chips at the start of the hand as a whole number"),
    ({"status__Player_00": "playing"}, "typo", "choose played, disqualified or no-show"),
    ({"hand__Player_00": "1"}, "typo", "Nothing changed"),
    ({"hand__Player_00": "5", "hand__Player_05": "1"}, "", "the reason"),
    ({"hand__Player_00": "6", "hand__Player_01": "7", "hand__Player_02": "8", "hand__Player_03": "8",
      "hand__Player_04": "9", "hand__Player_05": "10", "hand__Player_06": "11"}, "typo", "impossible night"),
])
def test_an_impossible_correction_is_refused_and_changes_nothing(client, settled_seven, fields, reason, said):
    before = state(settled_seven)
    response = correct(client, settled_seven, reason=reason, **fields)
    assert response.status_code == 422
    assert said in response.get_data(as_text=True)
    assert state(settled_seven) == before
    assert not db.session.scalar(db.select(db.func.count()).select_from(Ruling).where(
        Ruling.kind == "result_correction"))


def test_a_night_not_settled_has_nothing_to_correct(client, night):
    fill(client, night, 3)
    assert client.get(f"/host/events/{night.id}/correct").status_code == 303
    response = client.post(f"/host/events/{night.id}/correct", headers={"HX-Request": "true"},
                           data={"csrf_token": csrf_token(client, "/"), "reason": "x"})
    assert response.status_code == 422 and "Only a settled night can be corrected" in response.get_data(as_text=True)


def test_only_the_nights_host_or_an_organiser_corrects_it(app, client, settled_seven, league):
    other = User(username="other", display_name="Otto", role="host", league_id=league.id)
    other.set_password("pw-other")
    db.session.add(other)
    db.session.commit()
    stranger = app.test_client()
    login(stranger, "other", "pw-other")
    assert stranger.get(f"/host/events/{settled_seven.id}/correct").status_code == 403
    boss = app.test_client()
    login(boss, "organiser", "pw-organiser")
    response = correct(boss, settled_seven, hand__Player_00="5", hand__Player_05="1")
    assert response.status_code == 200
    organiser = db.session.scalar(db.select(User).where(User.username == "organiser"))
    assert db.session.scalar(db.select(Ruling.user_id).where(Ruling.kind == "result_correction")) == organiser.id


def test_r_pay_1_a_cash_nights_prizes_follow_the_correction(client, night):
    """R-PAY-1: the prizes are paid again by the corrected order, still summing to the pool."""
    as_cash_night(night, 30, 25, 250)
    fill(client, night, 4)
    for n in range(3):
        bust_out(night, f"Player {n:02d}")
    settle_night(night)
    rows, _, _ = state(night)
    pool = sum(r[3] for r in rows.values())
    assert rows["Player 03"][3] == pool
    response = correct(client, night, hand__Player_02="", hand__Player_03="3")
    assert response.status_code == 200, response.get_data(as_text=True)
    rows, _, _ = state(night)
    assert rows["Player 02"][3] == pool and rows["Player 03"][3] == 0
    assert db.session.get(Event, night.id).status == "settled"
    assert all(e.position for e in db.session.scalars(db.select(Entry).where(Entry.event_id == night.id)))


def test_r_qual_3_a_correction_never_takes_a_ticket_already_presented(client, settled_seven):
    """R-QUAL-3: Player 02's ticket was presented at the Monthly Final: a correction that would
    take it away (02 really went out first) is refused, nothing written."""
    ticket = db.session.scalar(db.select(Ticket).join(Member).where(Member.name == "Player 02"))
    ticket.presented_at = utcnow()
    db.session.commit()
    before = state(settled_seven)
    response = correct(client, settled_seven, hand__Player_02="1", stack__Player_02="", hand__Player_00="3",
                       stack__Player_00="2000")
    assert response.status_code == 422
    assert "take away Player 02" in html.unescape(response.get_data(as_text=True))
    assert state(settled_seven) == before


def test_r_pts_7_a_deals_players_stay_as_agreed_and_the_others_are_corrected(app, client, night):
    """R-PTS-7, R-PAY-2: after a deal, the players it placed keep their places and shares; the ones
    out before it can be corrected."""
    phones = cash_night_with_phones(app, client, night)
    check_in_players(night, [f"Early {n}" for n in range(3)])
    for n in range(3):
        bust_out(night, f"Early {n}")
    put_to_vote(client, night, {"Ann": 30_000, "Bob": 18_000, "Cat": 12_000}, "chip_chop")  # R-CHIP-3: 6 × 10,000
    for name in ("Ann", "Bob", "Cat"):
        vote(phones[name], night, True)
    assert host_op(client, night, "settle").status_code == 200
    rows, _, _ = state(night)
    page = client.get(f"/host/events/{night.id}/correct").get_data(as_text=True)
    assert "Placed by the deal (30,000 chips): stays as agreed." in page
    refused = correct(client, night, hand__Ann="1")
    assert refused.status_code == 422 and "placed by the deal" in refused.get_data(as_text=True)
    fixed = correct(client, night, hand__Early_0="2", hand__Early_1="1")
    assert fixed.status_code == 200, fixed.get_data(as_text=True)
    after, _, _ = state(night)
    assert (after["Early 0"][1], after["Early 1"][1]) == (5, 6)
    assert {n: after[n] for n in ("Ann", "Bob", "Cat")} == {n: rows[n] for n in ("Ann", "Bob", "Cat")}


def test_nobody_joins_a_settled_night(client, settled_seven):
    """A settled night takes no walk-in (it would leave a player with no place): its results are corrected."""
    before = state(settled_seven)
    response = host_op(client, settled_seven, "join", name="Too Late", adult="yes")
    assert response.status_code == 422 and "This night is settled" in response.get_data(as_text=True)
    assert state(settled_seven)[0] == before[0]
