"""The journal list: the night's last actions, newest first; undoing one takes back it and every
later action, newest first, so the night is as it was before it (services/journal.undo_since)."""
import html
import re

import pytest

from services import Refused, journal
from services.models import Action, Event
from tests.fixtures.host import host_op, seat_players
from tests.fixtures.rows import entries
from wiring.extensions import db

pytestmark = pytest.mark.both_databases(
    "undo re-inserts deleted rows with their old ids, which PostgreSQL's sequences do not see")


def actions(night):
    db.session.expire_all()
    return list(db.session.scalars(db.select(Action).where(Action.event_id == night.id).order_by(Action.id)))


def test_undo_of_an_earlier_action_takes_back_it_and_everything_after_it(client, night):
    roster = seat_players(client, night, ["Anna", "Bob", "Cy", "Dee"])
    joined = actions(night)
    assert host_op(client, night, "draw").status_code == 200
    host_op(client, night, f"bust:{roster['Dee'].id}")
    host_op(client, night, f"bust:{roster['Cy'].id}")
    page = host_op(client, night, "noop").get_data(as_text=True)
    # the list, newest first, with each one's summary and time
    listed = re.findall(r'<span class="muted">(\d\d:\d\d)</span> ([^<]+?)</span>', page)
    assert [summary for _, summary in listed[:3]] == ["Cy out in 3rd", "Dee out in 4th", "Seats drawn"]
    draw = next(a for a in actions(night) if a.summary == "Seats drawn")
    assert f'value="undo:{draw.id}"' in page and "Undo this and 2 after" in page

    top = actions(night)[-1].id
    response = host_op(client, night, f"undo:{draw.id}", journal_top=str(top))
    assert response.status_code == 200
    assert "Took back: Seats drawn; Dee out in 4th; Cy out in 3rd" in response.get_data(as_text=True)
    now = entries(night)
    assert {e.status for e in now.values()} == {"playing"} and {e.table_no for e in now.values()} == {None}
    assert [a.undone_at is not None for a in actions(night)] == [False] * len(joined) + [True] * 3
    # the last action is the fourth join again
    assert journal.last_action(db.session.get(Event, night.id)).id == joined[-1].id


def test_undo_passes_over_later_actions_already_undone_and_the_single_undo_still_works(client, night):
    roster = seat_players(client, night, ["Anna", "Bob", "Cy"])
    host_op(client, night, f"bust:{roster['Cy'].id}")
    cy_out = actions(night)[-1]
    assert host_op(client, night, f"undo:{cy_out.id}").status_code == 200  # the Undo bar, as before
    host_op(client, night, f"bust:{roster['Bob'].id}")
    bob_out = actions(night)[-1]
    first_join = actions(night)[0]
    response = host_op(client, night, f"undo:{first_join.id}", journal_top=str(bob_out.id))
    said = re.search(r'class="flash" role="status"[^>]*>Took back: ([^<]+)<', html.unescape(response.get_data(as_text=True)))
    assert response.status_code == 200 and said and said[1].count("; ") == 3 and said[1].split("; ")[-1].startswith("Bob out in")
    assert entries(night) == {}  # every join taken back: nobody is in
    assert all(a.undone_at for a in actions(night))


def test_undo_is_refused_when_already_undone_not_this_nights_or_the_journal_moved_on(client, night, league):
    roster = seat_players(client, night, ["Anna", "Bob", "Cy"])
    host_op(client, night, f"bust:{roster['Cy'].id}")
    cy_out = actions(night)[-1]
    first = actions(night)[0]
    # another phone acted after this screen was drawn: nothing is undone
    stale = host_op(client, night, f"undo:{first.id}", journal_top=str(cy_out.id - 1))
    assert stale.status_code == 422 and "another screen" in stale.get_data(as_text=True)
    assert not any(a.undone_at for a in actions(night))
    host_op(client, night, f"undo:{cy_out.id}")
    again = host_op(client, night, f"undo:{cy_out.id}", journal_top=str(actions(night)[-2].id))
    assert again.status_code == 422 and "Already undone: Cy out in 3rd" in again.get_data(as_text=True)
    other = Event(league_id=league.id, venue_id=night.venue_id, event_type="nightly", date=night.date,
                  status="running")
    db.session.add(other)
    db.session.commit()
    with pytest.raises(Refused, match="not in tonight's journal"):
        journal.undo_since(other, first.id)
    foreign = host_op(client, night, "undo:99999", journal_top=str(actions(night)[-2].id))
    assert foreign.status_code == 422 and "not in tonight" in foreign.get_data(as_text=True)
