"""Finishing positions from the field as it finally stands, through the host's roster
(R-PTS-5..7, R-LATE-2, R-LATE-3, services.places): late entrants push earlier bust-outs down,
disqualifications keep their place in the order, no-shows never hold one, Undo puts positions
back, deals fix the places left, and settling answers a settled night or a refusal, never a 500."""
import html
import re

from league.points import check_finishing_order
from live.payload import clock_payload
from services.models import Entry, Member
from tests.conftest import login
from tests.fixtures.cash import cash_night_with_phones
from tests.fixtures.host import bust, fill, host_op, put_to_vote, tap
from tests.fixtures.phones import join, vote
from tests.fixtures.rows import entries, last_open_action
from wiring.extensions import db


def positions(night):
    return {name: e.position for name, e in entries(night).items()}


def late(client, night, name):
    response = host_op(client, night, "join", name=name, adult="yes")
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_data(as_text=True)


def settled(client, night):
    response = host_op(client, night, "settle")
    assert response.status_code == 200, response.get_data(as_text=True)
    after = entries(night)
    check_finishing_order([e.position for e in after.values() if e.status in ("played", "dq")])
    return after


def test_r_pts_5_rules_example_twenty_players_one_busts_two_late_entrants(client, night):
    """RULES.md R-PTS-5: 20 players, one busts, 2 late entrants arrive: the first bust-out
    finishes 22nd; the night settles with the points of a field of 22 (R-PTS-1, R-PTS-3)."""
    fill(client, night, 20)
    assert "Player 00 out in 20th" in bust(client, night, "Player 00")
    late(client, night, "Late One")
    page = late(client, night, "Late Two")
    assert positions(night)["Player 00"] == 22
    assert re.search(r"<li><span>22\. <a [^>]*>Player 00</a></span></li>", page) and "Provisional places" in page
    bust(client, night, "Late One")
    for n in range(1, 20):
        bust(client, night, f"Player {n:02d}")
    after = settled(client, night)
    order = ["Late Two"] + [f"Player {n:02d}" for n in range(19, 0, -1)] + ["Late One", "Player 00"]
    assert [after[name].position for name in order] == list(range(1, 23))
    # R-PTS-1 base + R-PTS-3 (15–24 players: +150 for the top 10); 75 from 11th on
    assert [after[name].points for name in order] == [900, 700, 550, 450, 425, 400, 375, 350, 325, 300] + [75] * 12
    assert "Provisional places" not in host_op(client, night, "noop").get_data(as_text=True)


def test_r_pts_6_a_late_entrant_after_two_out_in_one_hand(client, night):
    roster = fill(client, night, 6)
    a, b = roster["Player 00"], roster["Player 01"]
    response = host_op(client, night, "bust_hand", out=[str(a.id), str(b.id)],
                       **{f"stack-{a.id}": "3,000", f"stack-{b.id}": "5000"})
    assert "Out in one hand: Player 01 5th, Player 00 6th" in response.get_data(as_text=True)
    late(client, night, "Latecomer")
    assert (positions(night)["Player 01"], positions(night)["Player 00"]) == (6, 7)
    bust(client, night, "Latecomer")
    assert positions(night)["Latecomer"] == 5
    for n in (2, 3, 4):
        bust(client, night, f"Player {n:02d}")
    after = settled(client, night)
    assert [after[f"Player {n:02d}"].position for n in (5, 4, 3, 2, 1, 0)] == [1, 2, 3, 4, 6, 7]
    assert after["Latecomer"].position == 5


def test_r_pts_5_a_disqualification_then_a_late_entrant(client, night):
    roster = fill(client, night, 5)
    assert host_op(client, night, "dq", dq_entry=str(roster["Player 01"].id), reason="Collusion").status_code == 200
    assert positions(night)["Player 01"] == 5
    late(client, night, "Latecomer")
    assert positions(night)["Player 01"] == 6  # the DQ moves down like a bust-out
    bust(client, night, "Player 00")
    assert positions(night)["Player 00"] == 5
    for name in ("Latecomer", "Player 02", "Player 03"):
        bust(client, night, name)
    after = settled(client, night)
    assert (after["Player 01"].status, after["Player 01"].position, after["Player 01"].points) == ("dq", 6, 0)
    # R-PTS-2, six players: 275, 250, 225, 200, 175, 150 (the DQ's 150 is nobody's)
    assert [after[name].points for name in ("Player 04", "Player 03", "Player 02", "Latecomer", "Player 00")] == [
        275, 250, 225, 200, 175]


def test_r_late_3_a_no_show_removed_at_the_final_table_never_held_a_place(client, night):
    """Positions never counted a pre-registered player who hadn't come, so removing them at the final
    table leaves them closed up; they were provisional only while that player might still arrive."""
    db.session.add(Member.named(night.league_id, "Never Came"))
    db.session.commit()
    never = db.session.scalar(db.select(Member).where(Member.name == "Never Came"))
    fill(client, night, 12)
    assert host_op(client, night, f"prereg:{never.id}").status_code == 200
    host_op(client, night, "draw")
    tap(client, night, "start")
    major = next(i for i, item in enumerate(clock_payload(night)["structure"]) if item.get("major"))
    tap(client, night, "jump", index=str(major + 1))  # registration has closed (R-LATE-1)
    bust(client, night, "Player 00")
    page = bust(client, night, "Player 01")
    assert (positions(night)["Player 00"], positions(night)["Player 01"]) == (12, 11)
    assert "Provisional places" in page  # Never Came may still arrive and push them down
    page = host_op(client, night, "final").get_data(as_text=True)
    assert entries(night)["Never Came"].status == "no_show"
    assert (positions(night)["Player 00"], positions(night)["Player 01"]) == (12, 11)
    assert "Provisional places" not in page
    for n in range(2, 11):
        bust(client, night, f"Player {n:02d}")
    after = settled(client, night)
    assert sorted(e.position for e in after.values() if e.status == "played") == list(range(1, 13))
    assert (after["Never Came"].position, after["Never Came"].points) == (None, 0)


def test_undo_of_a_late_entry_puts_the_earlier_positions_back(client, night):
    fill(client, night, 5)
    bust(client, night, "Player 04")
    bust(client, night, "Player 03")
    late(client, night, "Latecomer")
    assert (positions(night)["Player 04"], positions(night)["Player 03"]) == (6, 5)
    assert host_op(client, night, f"undo:{last_open_action(night).id}").status_code == 200
    db.session.expire_all()
    assert "Latecomer" not in entries(night)
    assert (positions(night)["Player 04"], positions(night)["Player 03"]) == (5, 4)
    # and undoing a bust-out after a late entrant gives back the position it had before
    late(client, night, "Latecomer")
    bust(client, night, "Player 02")
    assert positions(night)["Player 02"] == 4
    assert host_op(client, night, f"undo:{last_open_action(night).id}").status_code == 200
    db.session.expire_all()
    assert (positions(night)["Player 02"], entries(night)["Player 02"].status) == (None, "playing")
    assert (positions(night)["Player 04"], positions(night)["Player 03"]) == (6, 5)


def test_r_pts_7_a_late_entrant_then_a_deal_then_settle(app, client, night):
    phones = cash_night_with_phones(app, client, night)
    for n in range(4):
        late(client, night, f"Early {n}")
    bust(client, night, "Early 0")
    bust(client, night, "Early 1")
    late(client, night, "Latecomer")  # 8 in the field: Early 0 is pushed from 7th to 8th
    assert positions(night)["Early 0"] == 8
    for name in ("Latecomer", "Early 2", "Early 3"):
        bust(client, night, name)
    assert put_to_vote(client, night, {"Ann": 16_000, "Bob": 40_000, "Cat": 24_000}, "chip_chop").status_code == 200
    for name in ("Ann", "Bob", "Cat"):
        assert vote(phones[name], night, True).status_code == 303
    assert [positions(night)[n] for n in ("Bob", "Cat", "Ann")] == [1, 2, 3]
    # the agreement is one action the host can take back: the ballot reopens for the last vote
    last = last_open_action(night)
    assert last.kind == "deal_agreed"
    assert host_op(client, night, f"undo:{last.id}").status_code == 200
    db.session.expire_all()
    db.session.refresh(night)
    assert night.deal_status == "open" and {entries(night)[n].status for n in ("Ann", "Bob", "Cat")} == {"playing"}
    assert positions(night)["Ann"] is None and entries(night)["Cat"].deal_vote is None
    assert vote(phones["Cat"], night, True).status_code == 303
    after = settled(client, night)
    expected = {"Bob": 1, "Cat": 2, "Ann": 3, "Early 3": 4, "Early 2": 5, "Latecomer": 6, "Early 1": 7, "Early 0": 8}
    assert {name: e.position for name, e in after.items()} == expected
    # R-PTS-2: eight players earn the values of places 3 to 10: 400, 300, 275, 250, 225, 200, 175, 150
    assert [after[name].points for name in expected] == [400, 300, 275, 250, 225, 200, 175, 150]
    # 8 × $25 + $250 = $450, one paid place, all of it split by the deal: chip-chop 225 / 135 / 90
    assert [after[n].prize for n in ("Bob", "Cat", "Ann")] == [225, 135, 90]


def test_r_pts_5_disqualifying_the_last_player_left_then_settling(client, night):
    fill(client, night, 3)
    bust(client, night, "Player 02")
    bust(client, night, "Player 01")
    last = entries(night)["Player 00"]
    page = host_op(client, night, "dq", dq_entry=str(last.id), reason="Abuse").get_data(as_text=True)
    assert "Settle the night" in page
    after = settled(client, night)
    assert [(after[f"Player {n:02d}"].position, after[f"Player {n:02d}"].points) for n in range(3)] == [
        (1, 0), (2, 175), (3, 150)]


def test_a_night_placed_by_the_old_arithmetic_settles_with_its_positions_derived_again(client, night):
    """Before this derivation a late entrant pushed nobody down and a disqualification had no step
    number, so positions repeated and settling failed. The next host action places them again."""
    fill(client, night, 5)
    bust(client, night, "Player 04")  # hand 1: 5th of 5
    db.session.add(Member.named(night.league_id, "Late Larry"))
    db.session.flush()
    larry = db.session.scalar(db.select(Member).where(Member.name == "Late Larry"))
    db.session.add(Entry(event_id=night.id, member_id=larry.id, status="playing"))  # pushed nobody down
    roster = entries(night)
    roster["Player 01"].status, roster["Player 01"].position = "dq", 5  # the old DQ: no step number
    roster["Player 03"].status, roster["Player 03"].position, roster["Player 03"].bust_hand = "played", 4, 2
    db.session.commit()
    bust(client, night, "Player 02")
    assert positions(night) == {"Player 00": None, "Late Larry": None, "Player 01": 5, "Player 02": 3,
                                "Player 03": 4, "Player 04": 6}
    bust(client, night, "Late Larry")
    after = settled(client, night)
    assert [after[n].position for n in ("Player 00", "Late Larry", "Player 02", "Player 03", "Player 01",
                                        "Player 04")] == [1, 2, 3, 4, 5, 6]


def test_settling_a_night_it_cannot_place_is_refused_with_what_to_fix(client, night):
    login(client, "host", "pw-host")
    nobody = host_op(client, night, "settle")
    assert nobody.status_code == 422 and "Nobody has played" in html.unescape(nobody.get_data(as_text=True))
    roster = fill(client, night, 4)
    # two out in one hand with no stacks (never recorded so by the roster, which asks for them)
    for name in ("Player 00", "Player 01", "Player 02"):
        roster[name].status, roster[name].bust_hand = "played", 1
    db.session.commit()
    refused = host_op(client, night, "settle")
    text = html.unescape(refused.get_data(as_text=True))
    assert refused.status_code == 422 and "can't be settled yet" in text and "give each one's chips" in text
    db.session.refresh(night)
    assert night.status == "running" and entries(night)["Player 03"].status == "playing"


def test_r_pts_5_a_players_phone_says_provisional_until_registration_closes(app, client, night):
    phone = app.test_client()
    join(phone, night, "Ann Lee")
    login(client, "host", "pw-host")
    host_op(client, night, f"confirm:{entries(night)['Ann Lee'].id}")
    fill(client, night, 3)
    bust(client, night, "Ann Lee")
    mine = phone.get(f"/events/{night.id}/me").get_data(as_text=True)
    assert "Finished 4th (provisional)" in mine and "each late entrant moves you one place down" in mine
    tap(client, night, "start")
    major = next(i for i, item in enumerate(clock_payload(night)["structure"]) if item.get("major"))
    tap(client, night, "jump", index=str(major + 1))  # registration has closed (R-LATE-1)
    mine = phone.get(f"/events/{night.id}/me").get_data(as_text=True)
    assert "Finished 4th" in mine and "provisional" not in mine
    assert "Provisional places" not in host_op(client, night, "noop").get_data(as_text=True)


def test_r_pts_5_settle_is_offered_exactly_when_settling_would_not_refuse_first(app, client, night):
    """R-PTS-5, R-LATE-3: the host's Settle button and services.settling.settle_problem are one rule:
    at each step of a night the button shows exactly when the problem is None, and where it does not
    show, settling answers that same problem and changes nothing."""
    from services.night_snapshot import read_night
    from services.settling import settle_problem

    def offered_and_problem():
        page = host_op(client, night, "noop").get_data(as_text=True)
        db.session.expire_all()
        return "Settle the night" in page, settle_problem(read_night(db.session.get(type(night), night.id)))

    def refused_with(problem):
        response = host_op(client, night, "settle")
        assert response.status_code == 422 and html.escape(problem) in response.get_data(as_text=True)
        db.session.expire_all()
        assert db.session.get(type(night), night.id).status != "settled"

    login(client, "host", "pw-host")
    steps = [lambda: None, lambda: fill(client, night, 3), lambda: bust(client, night, "Player 02"),
             lambda: join(app.test_client(), night, "Late Comer"), lambda: bust(client, night, "Player 01")]
    seen = []
    for step in steps:
        step()
        offered, problem = offered_and_problem()
        assert offered == (problem is None)
        seen.append(offered)
        if problem is not None:
            refused_with(problem)
    # Nobody, three in, two in, an arrival waiting with one left, one left but the arrival waiting.
    assert seen == [False, False, False, False, False]
    pending = next(e for e in entries(night).values() if e.member.name == "Late Comer")
    host_op(client, night, f"reject:{pending.id}", confirm="yes")
    offered, problem = offered_and_problem()
    assert offered and problem is None
    settled(client, night)
    offered, problem = offered_and_problem()
    assert not offered and problem.startswith("This night is settled already")
