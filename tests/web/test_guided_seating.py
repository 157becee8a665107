"""Guided seating on the host's roster (R-SEAT-1..4, R-LATE-2): a late entrant who finds every table
full opens a table filled at once by a draw; the moves a draw gives are walked one at a time in the
panel fixed to the bottom of the screen (host/_moves.html), each Done one journalled action Undo takes
back; a table to break, the final table and balancing moves come one at a time there too."""
import re

import pytest

from league.seating import table_sizes
from services import seats
from services.models import Entry
from services.night_snapshot import read_night
from tests.fixtures.host import bust, fill, host_op, seated_down_to
from tests.fixtures.pages import html, refusal, text
from tests.fixtures.roster import bust_out, draw_seats
from tests.fixtures.rows import entries
from wiring.extensions import db

pytestmark = pytest.mark.usefixtures("app")


def panel(page: str) -> str:
    """The moves panel's markup ('' when the roster shows none)."""
    found = re.search(r'<section class="moves".*?</section>', page, re.S)
    return found.group(0) if found else ""


def answer(page: str) -> str:
    """The answer bar's markup, where a success says what it did ('' when there is none)."""
    found = re.search(r'<div class="answer-bar">.*?</div>', page, re.S)
    return found.group(0) if found else ""


def pending(night) -> list[Entry]:
    """The players the host has still to see sat down, in the walk's order (their new seats)."""
    db.session.expire_all()
    return seats.walk(read_night(night))


def sizes(night) -> dict[int, int]:
    return table_sizes(read_night(night).seated)


@pytest.fixture
def twenty(client, night):
    """Twenty players seated at two full tables of ten."""
    fill(client, night, 20)
    draw_seats(night)
    assert sizes(night) == {1: 10, 2: 10}
    return night


def test_r_seat_1_the_21st_entrant_opens_a_table_of_seven_and_the_host_walks_six_moves(client, twenty):
    night = twenty
    page = host_op(client, night, "join", name="Wren", adult="yes")
    assert page.status_code == 200
    assert sizes(night) == {1: 7, 2: 7, 3: 7}
    moves = pending(night)
    assert len(moves) == 6 and {(m.moved_from_table, m.table_no) for m in moves} == {(1, 3), (2, 3)}
    shown = panel(html(page))
    assert "6 to go" in shown and shown.count("<li data-move") == 6 and shown.count("<li data-move hidden") == 5
    first = moves[0]
    assert (f"<strong>Move {first.member.name}</strong>: T{first.moved_from_table} S{first.moved_from_seat} → "
            f"T{first.table_no} S{first.seat_no}") in shown


def test_r_seat_1_the_panel_shows_a_name_as_text(client, twenty):
    night = twenty
    host_op(client, night, "join", name="Wren", adult="yes")
    mover = pending(night)[0]
    mover.member.name = "O'Brien <b>"
    db.session.commit()
    shown = panel(html(host_op(client, night, "noop")))
    assert "Move O&#39;Brien &lt;b&gt;</strong>" in shown and "<b>" not in shown


def test_r_seat_1_done_walks_on_to_the_next_move_and_undo_puts_it_back(client, twenty):
    night = twenty
    host_op(client, night, "join", name="Wren", adult="yes")
    first, second = pending(night)[:2]
    done = host_op(client, night, f"walk_done:{first.id}")
    assert done.status_code == 200
    shown = panel(text(done))
    assert "5 to go" in shown and "moved: T" in answer(text(done)) and 'role="status"' in answer(text(done))
    # the move after the one done is the one shown (not hidden)
    assert re.search(rf'<li data-move>\s*<p><strong>Move {second.member.name}</strong>: ', shown)
    assert [m.id for m in pending(night)][0] == second.id
    undone = host_op(client, night, f"undo:{night_last_action(night)}")
    assert undone.status_code == 200 and "Took back: " in text(undone)
    assert [m.id for m in pending(night)][0] == first.id


def night_last_action(night) -> int:
    return read_night(night).last_action.id


def test_r_seat_1_done_twice_is_one_action_and_the_second_is_refused(client, twenty):
    night = twenty
    host_op(client, night, "join", name="Wren", adult="yes")
    move = pending(night)[0]
    assert host_op(client, night, f"walk_done:{move.id}").status_code == 200
    again = host_op(client, night, f"walk_done:{move.id}")
    assert again.status_code == 422
    block = refusal(text(again))
    assert block and "done already, or no longer due" in block
    assert len(pending(night)) == 5


@pytest.mark.parametrize("op", ["walk_done:0", "walk_done:x", "walk_done:999999", "walk_done:"])
def test_r_seat_1_a_move_that_is_not_due_is_refused_nothing_written(client, twenty, op):
    night = twenty
    before = read_night(night).last_action.id
    refused = host_op(client, night, op)
    assert refused.status_code == 422 and "no longer due" in (refusal(text(refused)) or "")
    assert read_night(night).last_action.id == before


def test_r_seat_1_a_moved_player_out_since_has_nothing_left_to_walk(client, twenty):
    night = twenty
    host_op(client, night, "join", name="Wren", adult="yes")
    move = pending(night)[0]
    name = move.member.name
    bust(client, night, name)
    refused = host_op(client, night, f"walk_done:{move.id}")
    assert refused.status_code == 422
    assert f"Move {name}" not in panel(html(host_op(client, night, "noop")))


def test_r_seat_3_break_table_asks_first_then_its_players_are_walked_one_at_a_time(client, night):
    seated_down_to(client, night, 21, 2)
    table = seats.table_plan(read_night(night))["break"]
    shown = panel(html(host_op(client, night, "noop")))
    assert 'value="break"' in shown and f'data-confirm="Break table {table}?' in shown
    broken = host_op(client, night, "break")
    assert broken.status_code == 200
    moves = pending(night)
    assert moves and {m.moved_from_table for m in moves} == {table} and table not in sizes(night)
    assert f"{len(moves)} to go" in panel(text(broken)) and "Table broken" in answer(text(broken))


def test_r_seat_4_the_final_table_asks_first_and_every_move_is_walked(client, night):
    seated_down_to(client, night, 12, 3)
    shown = panel(html(host_op(client, night, "noop")))
    assert 'value="final"' in shown and 'data-confirm="Draw the final table?' in shown
    drawn = host_op(client, night, "final")
    assert drawn.status_code == 200 and sizes(night) == {1: 9}
    moves = pending(night)
    assert moves and all(m.table_no == 1 for m in moves)
    assert f"{len(moves)} to go" in panel(text(drawn))


def test_r_seat_2_balancing_comes_one_move_at_a_time_in_the_panel(client, night):
    fill(client, night, 18)
    draw_seats(night)
    at_two = [e.member.name for e in entries(night).values() if e.table_no == 2]
    for name in at_two[:2]:
        bust_out(night, name)
    shown = panel(html(host_op(client, night, "noop")))
    assert "Balance the tables" in shown and "big blind next at T1 → T2" in shown
    assert shown.count('name="mover-1"') == 1 and 'value="move_to:1:2:' in shown
    mover = next(e for e in entries(night).values() if e.table_no == 1)
    seat = re.search(r'value="move_to:1:2:(\d+)"', shown)[1]
    moved = host_op(client, night, f"move_to:1:2:{seat}", **{"mover-1": str(mover.id)})
    assert moved.status_code == 200 and f"{mover.member.name} moved to table 2 seat {seat}" in answer(text(moved))
    assert sizes(night) == {1: 8, 2: 8}


def test_r_seat_2_a_balancing_move_to_a_taken_seat_is_refused_in_the_panel(client, night):
    fill(client, night, 18)
    draw_seats(night)
    at_two = [e for e in entries(night).values() if e.table_no == 2]
    for entry in at_two[:2]:
        bust_out(night, entry.member.name)
    taken = next(e for e in entries(night).values() if e.table_no == 2 and e.status == "playing")
    mover = next(e for e in entries(night).values() if e.table_no == 1)
    refused = host_op(client, night, f"move_to:1:2:{taken.seat_no}", **{"mover-1": str(mover.id)})
    assert refused.status_code == 422
    assert "is taken" in (refusal(panel(text(refused))) or "")
