"""The host's night after check-in: seats (R-SEAT), bonus chips (R-CHIP), settling (R-PTS, R-QUAL, R-PAY)."""
from collections import Counter

from services.models import Action, BonusClaim, Member, Ruling, Ticket
from tests.conftest import login
from tests.fixtures.host import fill, host_op, tap
from tests.fixtures.rows import entries, last_open_action
from wiring.extensions import db


def tables(night):
    return Counter(e.table_no for e in entries(night).values() if e.status == "playing")


def test_r_seat_1_draw_seats_sizes_within_one(client, night):
    fill(client, night, 23)
    response = host_op(client, night, "draw")
    assert response.status_code == 200 and "Table 3" in response.get_data(as_text=True)
    sizes = tables(night)
    assert len(sizes) == 3 and max(sizes.values()) - min(sizes.values()) <= 1
    seats = {(e.table_no, e.seat_no) for e in entries(night).values()}
    assert len(seats) == 23
    assert host_op(client, night, "draw").status_code == 422  # already drawn


def test_r_late_2_a_late_entrant_draws_from_the_same_pool(client, night):
    fill(client, night, 19)  # tables of 10 and 9
    host_op(client, night, "draw")
    host_op(client, night, "join", name="Latecomer", adult="yes")
    late = entries(night)["Latecomer"]
    assert late.table_no == 2 and max(tables(night).values()) - min(tables(night).values()) <= 1


def test_r_seat_3_and_4_break_a_table_then_the_final_table(client, night):
    roster = fill(client, night, 12)
    host_op(client, night, "draw")
    assert len(tables(night)) == 2
    for name in ("Player 00", "Player 01"):
        host_op(client, night, f"bust:{roster[name].id}")
    # 10 left fit at one table: the final table redraw is offered and done
    page = host_op(client, night, "final")
    assert page.status_code == 200
    assert set(tables(night)) == {1} and sum(tables(night).values()) == 10
    assert host_op(client, night, "final").status_code == 422


def test_r_seat_3_break_when_they_fit_at_one_fewer_table(client, night):
    roster = fill(client, night, 21)  # 3 tables of 7
    host_op(client, night, "draw")
    assert host_op(client, night, "break").status_code == 422
    for n in range(2):
        host_op(client, night, f"bust:{roster[f'Player {n:02d}'].id}")
    assert 'value="break"' in host_op(client, night, "noop").get_data(as_text=True)  # the moves panel offers it
    assert host_op(client, night, "break").status_code == 200
    sizes = tables(night)
    assert len(sizes) == 2 and sum(sizes.values()) == 19 and max(sizes.values()) - min(sizes.values()) <= 1


def test_r_chip_2_food_bonus_windows_and_override(client, night):
    roster = fill(client, night, 3)
    anna = roster["Player 00"]
    # before the clock starts: food is accepted, once
    assert host_op(client, night, "bonus", bonus_entry=str(anna.id), kind="food").status_code == 200
    twice = host_op(client, night, "bonus", bonus_entry=str(anna.id), kind="food")
    assert twice.status_code == 422
    tap(client, night, "start")
    bob = roster["Player 01"]
    refused = host_op(client, night, "bonus", bonus_entry=str(bob.id), kind="drink")
    assert refused.status_code == 422 and "major break" in refused.get_data(as_text=True)
    allowed = host_op(client, night, "bonus", bonus_entry=str(bob.id), kind="drink", why="Bar was shut")
    assert allowed.status_code == 200
    claims = {(c.entry_id, c.kind): c for c in db.session.scalars(db.select(BonusClaim))}
    assert claims[(anna.id, "food")].chips == 1000 and claims[(bob.id, "drink")].override
    assert db.session.scalar(db.select(Ruling).where(Ruling.kind == "bonus_override")).reason == "Bar was shut"
    # R-CHIP-3: chips in play count the bonuses
    html = host_op(client, night, "noop").get_data(as_text=True)
    assert "Chips in play 31,500" in html


def test_settle_awards_points_tickets_and_can_be_undone(client, night):
    roster = fill(client, night, 6)
    assert host_op(client, night, "settle").status_code == 422  # six still in
    for n in range(5):
        host_op(client, night, f"bust:{roster[f'Player {n:02d}'].id}")
    response = host_op(client, night, "settle")
    assert response.status_code == 200
    after = entries(night)
    assert after["Player 05"].position == 1
    # R-PTS-2: six players → 275, 250, 225, 200, 175, 150
    assert [after[f"Player {n:02d}"].points for n in (5, 4, 3, 2, 1, 0)] == [275, 250, 225, 200, 175, 150]
    db.session.refresh(night)
    assert night.status == "settled"
    assert db.session.scalar(db.select(db.func.count()).select_from(Ticket)) == 5
    last = db.session.scalar(db.select(Action).order_by(Action.id.desc()))
    host_op(client, night, f"undo:{last.id}")
    db.session.refresh(night)
    assert night.status == "running" and entries(night)["Player 05"].status == "playing"
    assert db.session.scalar(db.select(db.func.count()).select_from(Ticket)) == 0


def test_r_pay_1_a_cash_night_pays_whole_dollars(client, night):
    night.buy_in, night.pool_share, night.guarantee = 30, 25, 100
    db.session.commit()
    roster = fill(client, night, 20)
    for n in range(19):
        host_op(client, night, f"bust:{roster[f'Player {n:02d}'].id}")
    host_op(client, night, "settle")
    prizes = {e.position: e.prize for e in entries(night).values() if e.prize}
    # 20 entries × $25 + $100 = $600; 10 % of 20 = 2 paid places
    assert sorted(prizes) == [1, 2] and sum(prizes.values()) == 600 and prizes[1] > prizes[2]


def test_r_late_3_pre_registered_missed_blinds_and_absentees(client, night):
    from services.models import Member
    for name in ("Early Bird", "Never Came"):
        db.session.add(Member.named(night.league_id, name))
    db.session.commit()
    members = {m.name: m for m in db.session.scalars(db.select(Member))}
    roster = fill(client, night, 3)
    for name in ("Early Bird", "Never Came"):
        assert host_op(client, night, f"prereg:{members[name].id}").status_code == 200
    assert {entries(night)[n].status for n in ("Early Bird", "Never Came")} == {"registered"}
    html = host_op(client, night, "noop").get_data(as_text=True)
    assert "Chips in play 50,000" in html and "Pre-registered, not here yet" in html  # stacks in play
    tap(client, night, "start")
    tap(client, night, "next")  # level 2 has begun: levels 1 and 2 were missed
    host_op(client, night, f"walk_in:{members['Early Bird'].id}")
    html = host_op(client, night, "noop").get_data(as_text=True)
    assert "Levels 1–2 started before you arrived: 25+50, 50+100 = 225 chips" in html
    early = entries(night)["Early Bird"]
    assert host_op(client, night, f"deduct:{early.id}", **{f"blinds-{early.id}": "200"}).status_code == 200
    assert entries(night)["Early Bird"].chips_removed == 200
    # three busts: a pre-registered player not here yet has taken no seat, so isn't in the field
    # (R-PTS-5): 4 in: 4th, 3rd, 2nd, provisional while Never Came may still arrive (R-LATE-3)
    for n in range(3):
        html = host_op(client, night, f"bust:{roster[f'Player {n:02d}'].id}").get_data(as_text=True)
    assert sorted(e.position for e in entries(night).values() if e.status == "played") == [2, 3, 4]
    assert "Provisional places" in html
    assert host_op(client, night, "settle").status_code == 200
    after = entries(night)
    # Never Came is removed: no points, no field place; no position ever counted them
    assert (after["Never Came"].status, after["Never Came"].points) == ("no_show", 0)
    assert sorted(e.position for e in after.values() if e.status == "played") == [1, 2, 3, 4]
    assert after["Early Bird"].position == 1 and after["Early Bird"].points == 225  # 1st of 4 (R-PTS-2)


def test_an_unknown_bonus_kind_is_refused_not_an_error(client, night):
    roster = fill(client, night, 2)
    response = host_op(client, night, "bonus", bonus_entry=str(roster["Player 00"].id), kind="")
    assert response.status_code == 422
    assert db.session.scalar(db.select(db.func.count()).select_from(BonusClaim)) == 0


def test_undo_takes_back_joins_draws_walk_ins_and_a_settle(client, night):
    """Undo of rows an action created (a new member's entry, seated at once after the draw) deletes
    them; undo of a draw unseats everyone; undo of a settle reopens the night and moves the clock's
    version on, never back (phones already past a version would ignore the next change)."""
    login(client, "host", "pw-host")
    for n in range(12):
        host_op(client, night, "join", name=f"P{n:02d}", adult="yes")
    host_op(client, night, "bonus", bonus_entry=str(entries(night)["P00"].id), kind="food")
    assert host_op(client, night, f"undo:{last_open_action(night).id}").status_code == 200
    assert db.session.scalar(db.select(db.func.count()).select_from(BonusClaim)) == 0
    host_op(client, night, "draw")
    assert host_op(client, night, f"undo:{last_open_action(night).id}").status_code == 200
    assert all(e.table_no is None for e in entries(night).values())
    host_op(client, night, "draw")
    host_op(client, night, "join", name="Late", adult="yes")
    assert entries(night)["Late"].table_no is not None
    assert host_op(client, night, f"undo:{last_open_action(night).id}").status_code == 200
    db.session.expire_all()
    assert "Late" not in entries(night)
    walker = Member.named(night.league_id, "Walker")
    db.session.add(walker)
    db.session.commit()
    assert host_op(client, night, f"walk_in:{walker.id}").status_code == 200
    assert entries(night)["Walker"].table_no is not None
    assert host_op(client, night, f"undo:{last_open_action(night).id}").status_code == 200
    db.session.expire_all()
    assert "Walker" not in entries(night)
    assert host_op(client, night, f"walk_in:{walker.id}").status_code == 200
    assert host_op(client, night, f"bust:{entries(night)['Walker'].id}").status_code == 200
    roster = entries(night)
    for n in range(12):
        host_op(client, night, f"bust:{roster[f'P{n:02d}'].id}")
    db.session.refresh(night)
    before = night.clock_version
    assert host_op(client, night, "settle").status_code == 200
    assert host_op(client, night, f"undo:{last_open_action(night).id}").status_code == 200
    db.session.refresh(night)
    assert night.status == "running" and night.clock_version == before + 2
    assert host_op(client, night, "settle").status_code == 200
