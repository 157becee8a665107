"""A player's sheet on the host's phone: every action for one player (Out, a bonus, a move, photo ID,
re-entry, rebuy, a warning or penalty, disqualification, a new phone) and their record tonight, each
action one journalled host action Undo takes back; every refusal atop the sheet with its reason and
the override the rule allows, nothing written (R-PTS-5, R-CHIP-1/2, R-SEAT-2, R-MEM-1)."""
import pytest

from services.models import BonusClaim, Member
from tests.fixtures.host import floor_op, floor_url, host_op, seat_players, tap
from tests.fixtures.pages import html, refusal
from tests.fixtures.rows import count, entries, last_open_action, written
from wiring.extensions import db


def test_the_sheet_has_every_action_for_the_player_and_their_record(client, night, table_of_nine):
    ann = table_of_nine["Ann"]
    ann.member.under_21 = True
    db.session.commit()
    assert host_op(client, night, f"bonus:{ann.id}", kind="membership").status_code == 200
    sheet = html(client.get(floor_url(night, ann)))
    for op in (f"bust:{ann.id}", f"bonus:{ann.id}", f"seat:{ann.id}", f"id:{ann.id}", "give:warning",
               "give:missed_hands", "give:missed_rounds", "give:disqualification"):
        assert f'value="{op}"' in sheet, op
    assert f'name="member" value="{ann.member_id}">New phone</button>' in sheet
    # the one empty seat to move to, none taken
    taken = {(e.table_no, e.seat_no) for e in table_of_nine.values()}
    offered = {(1, seat) for seat in range(1, 11)} - taken
    assert all(f'<option value="1-{seat}">Table 1, seat {seat}</option>' in sheet for _, seat in offered)
    assert len(offered) == 1 and sheet.count("<option value=\"1-") == 1
    # the record: where, the bonus taken (its button marked), the photo ID to check
    assert f"Table {ann.table_no}, seat {ann.seat_no}" in sheet and "Membership card +1,000" in sheet
    assert "+Card ✓" in sheet and "under 21: check ID" in sheet


def test_a_name_on_the_sheet_is_text(client, night):
    roster = seat_players(client, night, ["O'Brien <b>"])
    sheet = html(client.get(floor_url(night, roster["O'Brien <b>"])))
    assert "O&#39;Brien &lt;b&gt;" in sheet and "O'Brien <b>" not in sheet


def test_r_pts_5_out_from_the_sheet_is_one_action_undo_takes_back(client, night, table_of_nine):
    gus = table_of_nine["Gus"]
    out = floor_op(client, night, gus, f"bust:{gus.id}")
    assert out.status_code == 200
    page = html(out)
    assert '<p class="flash" role="status" tabindex="-1">Gus out in 9th</p>' in page and "Out in 9th" in page
    assert f'value="bust:{gus.id}"' not in page   # out: nothing more to bust
    action = last_open_action(night)
    assert (action.kind, action.summary) == ("bust", "Gus out in 9th")
    assert host_op(client, night, f"undo:{action.id}").status_code == 200
    assert entries(night)["Gus"].status == "playing"


def test_r_seat_2_a_move_to_an_empty_seat_from_the_sheet(client, night, table_of_nine):
    cat = table_of_nine["Cat"]
    free = sorted({seat for seat in range(1, 11)} - {e.seat_no for e in table_of_nine.values()})[0]
    moved = floor_op(client, night, cat, f"seat:{cat.id}", to=f"1-{free}")
    assert moved.status_code == 200 and f"Cat moved to table 1 seat {free}" in html(moved)
    assert (entries(night)["Cat"].table_no, entries(night)["Cat"].seat_no) == (1, free)
    assert last_open_action(night).kind == "seat"


@pytest.mark.parametrize("to, reason", [
    ("taken", "is taken"),
    ("1-11", "Table 1 has seats 1 to 10, not seat 11"),
    ("x-y", "Pick the seat to move to."),
    ("", "Pick the seat to move to."),
])
def test_r_seat_2_a_move_refused_says_why_and_writes_nothing(client, night, table_of_nine, to, reason):
    cat, dan = table_of_nine["Cat"], table_of_nine["Dan"]
    to = f"{dan.table_no}-{dan.seat_no}" if to == "taken" else to
    before = written(night)
    refused = floor_op(client, night, cat, f"seat:{cat.id}", to=to)
    assert refused.status_code == 422 and reason in refusal(html(refused))
    assert written(night) == before


def test_r_chip_2_a_bonus_outside_its_window_is_refused_on_the_sheet_with_its_override(client, night, table_of_nine):
    bob = table_of_nine["Bob"]
    assert tap(client, night, "start").status_code == 200   # play has begun: no food or drink now
    before = written(night), count(BonusClaim)
    refused = floor_op(client, night, bob, f"bonus:{bob.id}", kind="drink")
    page = html(refused)
    block = refusal(page)
    assert refused.status_code == 422 and "only before play starts or during the major break" in page
    assert block and 'name="why" required' in page and "Give the bonus anyway" in page
    assert f'name="op" value="bonus:{bob.id}"' in page and 'name="kind" value="drink"' in page
    assert (written(night), count(BonusClaim)) == before
    # the override, with the host's reason: given, and recorded as a ruling
    given = floor_op(client, night, bob, f"bonus:{bob.id}", kind="drink", why="Bar was shut at the start")
    assert given.status_code == 200 and "Bob: Drink bonus +" in html(given)
    assert count(BonusClaim) == before[1] + 1


def test_r_chip_1_a_second_bonus_of_a_kind_is_refused_on_the_sheet(client, night, table_of_nine):
    eve = table_of_nine["Eve"]
    assert floor_op(client, night, eve, f"bonus:{eve.id}", kind="membership").status_code == 200
    before = written(night), count(BonusClaim)
    again = floor_op(client, night, eve, f"bonus:{eve.id}", kind="membership")
    assert again.status_code == 422 and "Already claimed" in refusal(html(again))
    assert (written(night), count(BonusClaim)) == before


def test_an_action_for_another_player_or_an_unknown_op_is_refused(client, night, table_of_nine):
    ann, bob = table_of_nine["Ann"], table_of_nine["Bob"]
    before = written(night)
    for op in (f"bust:{bob.id}", "bust:", "bust:x", "settle", "undo:1", "draw", "give:nonsense"):
        refused = floor_op(client, night, ann, op)
        assert refused.status_code == 422, op
        assert "That button did nothing: reload the page." in refusal(html(refused)), op
    assert written(night) == before


def test_a_player_not_in_this_game_has_no_sheet(client, night, table_of_nine):
    assert client.get(f"/host/events/{night.id}/floor/999999").status_code == 404
    before = written(night)
    assert client.post(f"/host/events/{night.id}/floor/999999", headers={"HX-Request": "true"},
                       data={"op": "bust:999999"}).status_code in (400, 404)   # no CSRF token, or no player
    assert written(night) == before


def test_r_pts_5_a_player_already_out_is_refused_on_a_stale_sheet(client, night, table_of_nine):
    fay = table_of_nine["Fay"]
    assert floor_op(client, night, fay, f"bust:{fay.id}").status_code == 200
    before = written(night)
    again = floor_op(client, night, fay, f"bust:{fay.id}")   # the sheet another phone still showed
    assert again.status_code == 422 and "already out" in refusal(html(again))
    assert written(night) == before


def test_r_mem_1_photo_id_from_the_sheet(client, night, table_of_nine):
    dan = table_of_nine["Dan"]
    dan.member.under_21 = True
    db.session.commit()
    checked = floor_op(client, night, dan, f"id:{dan.id}")
    assert checked.status_code == 200 and "Photo ID checked for Dan" in html(checked)
    assert db.session.get(Member, dan.member_id).id_checked_at is not None
    assert f'value="id:{dan.id}"' not in html(checked) and "Checked (under 21)" in html(checked)
