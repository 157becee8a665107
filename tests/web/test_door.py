"""The door on the host's phone (R-MEM-1, R-LATE-4, R-PAY-1): the walk-in search (every word of a
name in any order, initials), members already in tonight shown where they are and never offered as
new, photo ID before an under-21 takes a seat, "New phone" for tonight's players, and a cash
night's buy-in named wherever someone is let in."""
import pytest

from services.models import Action, Member
from tests.conftest import csrf_token, login
from tests.fixtures.cash import as_cash_night
from tests.fixtures.host import host_op
from tests.fixtures.pages import html, refusal, words
from tests.fixtures.phones import join
from tests.fixtures.roster import check_in_players, draw_seats
from tests.fixtures.rows import count, entries, member
from wiring.extensions import db

NAMES = ("Nadia Gallagher", "Nadine Park", "Gary Nadler", "Dave O'Brien", "Zoë Martinez")


@pytest.fixture
def door(client, night):
    """The league's members by NAMES (none in tonight's game yet), the host logged in."""
    db.session.add_all([Member.named(night.league_id, name) for name in NAMES])
    db.session.commit()
    login(client, "host", "pw-host")
    return client


def search(client, night, q):
    response = client.get(f"/host/events/{night.id}/members", query_string={"q": q},
                          headers={"HX-Request": "true"})
    assert response.status_code == 200
    return html(response)


def found(client, night, q):
    """The names the walk-in search lists for `q`, in its order."""
    page = search(client, night, q)
    return [name for name in sorted(NAMES, key=page.find) if name.replace("'", "&#39;") in page]


@pytest.mark.parametrize("q, first", [
    ("Nad Ga", "Nadia Gallagher"), ("ga nad", "Gary Nadler"), ("  GALLAGHER   nadia ", "Nadia Gallagher"),
    ("ng", "Nadia Gallagher"), ("gn", "Gary Nadler"), ("obrien", "Dave O'Brien"), ("d o'b", "Dave O'Brien"),
    ("zoe m", "Zoë Martinez"), ("llag", "Nadia Gallagher"),
])
def test_r_mem_1_walk_in_search_finds_every_word_in_any_order_and_initials(door, night, q, first):
    assert found(door, night, q)[0] == first


def test_r_mem_1_walk_in_search_needs_every_word(door, night):
    assert found(door, night, "Nad Ga") == ["Nadia Gallagher", "Gary Nadler"]  # nad… and ga… both, in order first
    assert found(door, night, "ga nad") == ["Gary Nadler", "Nadia Gallagher"]
    assert found(door, night, "nadia park") == []
    assert "No member called “nadia park”." in words(search(door, night, "nadia park"))
    assert "Nadine Park" in found(door, night, "nad")


def test_r_late_4_someone_in_tonight_is_shown_where_they_are_never_as_new(door, night):
    host_op(door, night, f"walk_in:{member('Nadia Gallagher').id}")
    check_in_players(night, [f"Player {n}" for n in range(3)])
    nadia = draw_seats(night)["Nadia Gallagher"]
    page = search(door, night, "nadia gallagher")
    said = words(page)
    assert f"Nadia Gallagher in: Table {nadia.table_no}, Seat {nadia.seat_no}" in said
    assert "walk_in:" not in page and "prereg:" not in page and 'value="join"' not in page
    assert "New member" not in said and "is a member already" in said
    assert "New phone" in said  # R-MEM-1: tonight's player may move her card
    # one still to come is offered
    assert f'value="walk_in:{member("Nadine Park").id}"' in search(door, night, "nadine")
    assert "New member" in words(search(door, night, "nadia"))  # a name no member has yet


def test_r_mem_1_new_phone_works_for_tonights_players_only(door, night):
    nadia, nadine = member("Nadia Gallagher"), member("Nadine Park")
    host_op(door, night, f"walk_in:{nadia.id}")
    assert "New phone" not in search(door, night, "nadine")  # not in tonight: the host may not
    moved = door.post("/member-codes", data={"member": nadia.id, "event": night.id,
                                             "csrf_token": csrf_token(door, "/")})
    assert moved.status_code == 200 and "Nadia Gallagher" in html(moved)
    refused = door.post("/member-codes", data={"member": nadine.id, "csrf_token": csrf_token(door, "/")})
    assert refused.status_code == 403 and "check them in to your night first" in html(refused)


def test_r_mem_1_an_under_21_arrival_is_not_confirmed_until_the_id_is_checked(door, night, phone):
    join(phone, night, "Young Gun", under_21=True)
    entry = entries(night)["Young Gun"]
    roster = html(door.get(f"/host/events/{night.id}/players"))
    assert "under 21: check ID" in roster and f'value="confirm:{entry.id}:id"' in roster
    assert "ID checked · Confirm" in roster
    actions = count(Action)
    refused = host_op(door, night, f"confirm:{entry.id}")
    assert refused.status_code == 422
    assert "Young Gun is under 21: see their photo ID first" in words(refusal(html(refused)))
    assert entries(night)["Young Gun"].status == "pending" and member("Young Gun").id_checked_at is None
    assert count(Action) == actions  # nothing written
    done = host_op(door, night, f"confirm:{entry.id}:id")
    assert done.status_code == 200 and entries(night)["Young Gun"].status == "playing"
    assert member("Young Gun").id_checked_at is not None
    # the roster keeps the mark: who is under 21, ID checked
    row = html(door.get(f"/host/events/{night.id}/players"))
    assert 'title="Under 21: photo ID checked">U21</span>' in row
    # Undo takes the ID check back with the confirmation
    last = db.session.scalar(db.select(Action).order_by(Action.id.desc()))
    assert host_op(door, night, f"undo:{last.id}").status_code == 200
    assert entries(night)["Young Gun"].status == "pending" and member("Young Gun").id_checked_at is None


def test_r_mem_1_an_under_21_walk_in_needs_the_id_checked(door, night):
    young = member("Nadine Park")
    young.under_21 = True
    db.session.commit()
    page = search(door, night, "nadine")
    assert f'value="walk_in:{young.id}:id"' in page and "ID checked · Check in" in words(page)
    refused = host_op(door, night, f"walk_in:{young.id}")
    assert refused.status_code == 422 and "Nadine Park is under 21" in words(refusal(html(refused)))
    assert entries(night) == {}
    assert host_op(door, night, f"walk_in:{young.id}:id").status_code == 200
    assert entries(night)["Nadine Park"].status == "playing"
    again = words(search(door, night, "nadine"))
    assert "under 21 · ID checked" in again and "in: seats not drawn yet" in again


def test_r_mem_1_a_new_member_under_21_joined_by_the_host_is_id_checked(door, night):
    done = host_op(door, night, "join", name="Kid Curry", adult="yes", under_21="yes")
    assert done.status_code == 200 and entries(night)["Kid Curry"].status == "playing"
    assert member("Kid Curry").under_21 and member("Kid Curry").id_checked_at is not None


def test_r_pay_1_a_cash_nights_door_names_the_buy_in(door, night, phone):
    as_cash_night(night, buy_in=30)
    page = words(html(phone.get(f"/check-in/{night.check_in_code}")))
    assert "tonight's buy-in is $30, paid to the host" in page and "it's free" not in page
    join(phone, night, "Cash Cal")
    assert "Pay the host the $30 buy-in" in words(html(phone.get(f"/check-in/{night.check_in_code}")))
    roster = words(html(door.get(f"/host/events/{night.id}/players")))
    assert "Confirm · $30" in roster
    done = host_op(door, night, f"confirm:{entries(night)['Cash Cal'].id}")
    assert "Confirmed Cash Cal · $30 buy-in taken" in words(html(done))
    assert "Check in · $30" in words(search(door, night, "nadia"))
    walked = host_op(door, night, f"walk_in:{member('Nadia Gallagher').id}")
    assert "Checked in Nadia Gallagher · $30 buy-in taken" in words(html(walked))
    assert "Join and check in · $30" in words(search(door, night, "new face"))


def test_r_late_3_a_pre_registered_arrival_is_not_charged_twice(door, night):
    as_cash_night(night, buy_in=30)
    nadia = member("Nadia Gallagher")
    assert host_op(door, night, f"prereg:{nadia.id}").status_code == 200
    said = words(search(door, night, "nadia g"))
    assert "Nadia Gallagher pre-registered Check in New phone" in said  # no second $30
    arrived = host_op(door, night, f"walk_in:{nadia.id}")
    assert "Checked in Nadia Gallagher" in words(html(arrived)) and "buy-in taken" not in html(arrived)


def test_free_nights_door_says_membership_is_free(door, night, phone):
    page = words(html(phone.get(f"/check-in/{night.check_in_code}")))
    assert "membership is free" in page and "$" not in page
