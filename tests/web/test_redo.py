"""Redo on the host's roster: Undo keeps what it took back, and Redo puts it back exactly, for every
kind of host action, until a new action is made; a second tap is refused and changes nothing; Undo
says what it took back (services/journal.py)."""
import pytest

from blueprints import lock_event
from services import checkin, members, seats
from services.night_snapshot import read_night
from tests.fixtures.host import fill, floor_op, host_op, put_to_vote, seated_down_to
from tests.fixtures.pages import refusal, text
from tests.fixtures.roster import bust_out, draw_seats, phone_check_in, player_names
from tests.fixtures.rows import entries, every_row
from wiring.extensions import db

pytestmark = pytest.mark.both_databases("Redo inserts rows again under the ids they had, past PostgreSQL's sequences")


def by_name(night, name):
    return entries(night)[name]


def last_id(night) -> int:
    db.session.expire_all()
    return read_night(night).last_action.id


def redo_id(night) -> int | None:
    db.session.expire_all()
    found = read_night(night).redo_action
    return found.id if found else None


# Each action kind: what to build first, and the op (with its fields) the host's phone posts.
def _seated(client, night, count=4):
    fill(client, night, count)
    return draw_seats(night)


def _join(client, night):
    fill(client, night, 2)
    return "join", {"name": "Wren", "adult": "yes"}


def _walk_in(client, night):
    fill(client, night, 2)
    member = members.join(night.league_id, "Wren", True, False)
    db.session.commit()
    return f"walk_in:{member.id}", {}


def _confirm(client, night, op="confirm"):
    fill(client, night, 2)
    phone_check_in(client.application, night, "Wren")
    return f"{op}:{by_name(night, 'Wren').id}", {}


def _id(client, night):
    fill(client, night, 2)
    lock_event(night)  # an under-21 checked in on their own phone, waiting for the host
    checkin.check_in(night, members.join(night.league_id, "Young Wren", True, True))
    db.session.commit()
    return f"id:{by_name(night, 'Young Wren').id}", {}


def _prereg(client, night):
    fill(client, night, 2)
    member = members.join(night.league_id, "Prue Early", True, False)
    db.session.commit()
    return f"prereg:{member.id}", {}


def _bust(client, night):
    return f"bust:{_seated(client, night)['Player 00'].id}", {}


def _bust_hand(client, night):
    roster = _seated(client, night)
    ids = [roster["Player 00"].id, roster["Player 01"].id]
    return "bust_hand", {"out": [str(i) for i in ids], f"stack-{ids[0]}": "500", f"stack-{ids[1]}": "900"}


def _dq(client, night):
    roster = _seated(client, night)
    return "dq", {"dq_entry": str(roster["Player 02"].id), "reason": "Abuse of the dealer"}


def _draw(client, night):
    fill(client, night, 12)
    return "draw", {}


def _break(client, night):
    seated_down_to(client, night, 21, 2)
    return "break", {}


def _final(client, night):
    seated_down_to(client, night, 12, 3)
    return "final", {}


def _walk_done(client, night):
    fill(client, night, 20)
    draw_seats(night)
    host_op(client, night, "join", name="Wren", adult="yes")
    return f"walk_done:{seats.walk(read_night(night))[0].id}", {}


def _move_to(client, night):
    fill(client, night, 18)
    draw_seats(night)
    for entry in [e for e in entries(night).values() if e.table_no == 2][:2]:
        bust_out(night, entry.member.name)
    mover = next(e for e in entries(night).values() if e.table_no == 1)
    taken = {e.seat_no for e in entries(night).values() if e.table_no == 2 and e.status == "playing"}
    return f"move_to:1:2:{min(set(range(1, 11)) - taken)}", {"mover-1": str(mover.id)}


def _bonus(client, night):
    return f"bonus:{_seated(client, night)['Player 01'].id}", {"kind": "food"}


def _bonus_all(client, night):
    _seated(client, night)
    return "bonus_all:food", {}


def _deal(client, night):
    _seated(client, night, 3)
    return "deal", {"method": "chip_chop", **{f"deal-{e.id}": "10000" for e in entries(night).values()}}


def _deal_off(client, night):
    _seated(client, night, 3)
    put_to_vote(client, night, {name: 10000 for name in player_names(3)})
    return "deal_off", {}


def _settle(client, night):
    _seated(client, night, 3)
    bust_out(night, "Player 00")
    bust_out(night, "Player 01")
    return "settle", {}


KINDS = {"join": _join, "walk_in": _walk_in, "confirm": _confirm, "id": _id, "prereg": _prereg,
         "reject": lambda client, night: _confirm(client, night, "reject"), "bust": _bust,
         "bust_hand": _bust_hand, "dq": _dq, "draw": _draw, "break": _break, "final": _final,
         "walk_done": _walk_done, "move_to": _move_to, "bonus": _bonus, "bonus_all": _bonus_all,
         "deal": _deal, "deal_off": _deal_off, "settle": _settle}


@pytest.mark.parametrize("kind", KINDS)
def test_redo_puts_back_exactly_what_undo_took_back(client, night, kind):
    op, data = KINDS[kind](client, night)
    acted = host_op(client, night, op, **data)
    assert acted.status_code == 200, refusal(text(acted))
    after = every_row()
    summary = read_night(night).last_action.summary
    undone = host_op(client, night, f"undo:{last_id(night)}")
    assert undone.status_code == 200 and f"Took back: {summary}" in text(undone)
    assert 'value="redo:' in text(undone)
    redone = host_op(client, night, f"redo:{redo_id(night)}")
    assert redone.status_code == 200 and f"Put back: {summary}" in text(redone)
    assert every_row() == after
    assert redo_id(night) is None


def test_redo_of_a_floor_warning(client, night):
    roster = _seated(client, night)
    assert floor_op(client, night, roster["Player 01"], "give:warning", reason="Slow play").status_code == 200
    after = every_row()
    host_op(client, night, f"undo:{last_id(night)}")
    assert host_op(client, night, f"redo:{redo_id(night)}").status_code == 200
    assert every_row() == after


def test_a_double_tapped_redo_is_one_redo(client, night):
    op, _ = _bust(client, night)
    host_op(client, night, op)
    host_op(client, night, f"undo:{last_id(night)}")
    tap = f"redo:{redo_id(night)}"
    assert host_op(client, night, tap).status_code == 200
    after = every_row()
    again = host_op(client, night, tap)
    assert again.status_code == 422 and "Nothing to redo" in (refusal(text(again)) or "")
    assert every_row() == after


def test_redo_puts_back_several_taken_back_at_once_oldest_first(client, night):
    roster = _seated(client, night)
    host_op(client, night, f"bust:{roster['Player 00'].id}")
    first = last_id(night)
    host_op(client, night, f"bust:{roster['Player 01'].id}")
    after = every_row()
    undone = host_op(client, night, f"undo:{first}", journal_top=str(last_id(night)))
    assert "Took back: Player 00 out in 4th; Player 01 out in 3rd" in text(undone)
    assert "Put back: Player 00 out in 4th" in text(host_op(client, night, f"redo:{redo_id(night)}"))
    assert "Put back: Player 01 out in 3rd" in text(host_op(client, night, f"redo:{redo_id(night)}"))
    assert every_row() == after and redo_id(night) is None


def test_a_new_action_ends_what_redo_can_put_back(client, night):
    roster = _seated(client, night)
    host_op(client, night, f"bust:{roster['Player 00'].id}")
    taken_back = last_id(night)
    host_op(client, night, f"undo:{taken_back}")
    host_op(client, night, f"bust:{roster['Player 01'].id}")
    page = text(host_op(client, night, "noop"))
    assert redo_id(night) is None and 'value="redo:' not in page
    stale = host_op(client, night, f"redo:{taken_back}")
    assert stale.status_code == 422 and "Nothing to redo" in (refusal(text(stale)) or "")
    # undoing the new one offers it alone, never the one the new action replaced
    host_op(client, night, f"undo:{last_id(night)}")
    assert redo_id(night) != taken_back


def test_redo_is_refused_when_the_night_changed_since_behind_the_journal(client, night):
    """A player's own phone changes rows outside the journal (a check-in): Redo can't put back rows
    that are no longer as Undo left them, and says so, nothing written."""
    fill(client, night, 2)
    phone_check_in(client.application, night, "Wren")
    wren = by_name(night, "Wren")
    host_op(client, night, f"confirm:{wren.id}")
    host_op(client, night, f"undo:{last_id(night)}")
    wren = by_name(night, "Wren")
    wren.arrived_at = None  # as a phone's own write would leave it
    db.session.commit()
    before = every_row()
    refused = host_op(client, night, f"redo:{redo_id(night)}")
    assert refused.status_code == 422 and "changed since it was taken back" in (refusal(text(refused)) or "")
    assert every_row() == before


@pytest.mark.parametrize("arg", ["", "x", "0", "-1", "99999"])
def test_a_redo_of_nothing_is_refused_nothing_written(client, night, arg):
    _seated(client, night)
    before = every_row()
    refused = host_op(client, night, f"redo:{arg}")
    assert refused.status_code == 422 and "Nothing to redo" in (refusal(text(refused)) or "")
    assert every_row() == before
