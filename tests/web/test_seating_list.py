"""The big screen's seating list (/api/events/<id>/seats, live.seats.seating_list, R-SEAT-1..4): the players
in the game with a seat, table by table, by name and nothing more; its voice reads it when the seat digest
moves."""
from services.models import Member
from tests.fixtures.host import bust
from wiring.extensions import db


def seats(client, night):
    response = client.get(f"/api/events/{night.id}/seats")
    assert response.status_code == 200 and response.headers["Cache-Control"] == "no-store"
    return response.get_json()


def test_r_seat_1_the_seated_players_by_table_and_seat(client, night, table_of_nine):
    answer = seats(client, night)
    assert answer["event_id"] == night.id and answer["final_table"] is False
    listed = [(row["table"], row["seat"], row["name"]) for row in answer["seats"]]
    assert listed == sorted((e.table_no, e.seat_no, name) for name, e in table_of_nine.items())
    assert {row["name"] for row in answer["seats"]} == set(table_of_nine)


def test_r_seat_1_a_player_out_leaves_the_list_and_nothing_private_is_in_it(client, night, table_of_nine):
    bust(client, night, "Ann")
    answer = seats(client, night)
    assert "Ann" not in {row["name"] for row in answer["seats"]} and len(answer["seats"]) == 8
    text = client.get(f"/api/events/{night.id}/seats").get_data(as_text=True)
    for member in db.session.scalars(db.select(Member)):
        assert member.card_code not in text
    assert all(set(row) == {"table", "seat", "name"} for row in answer["seats"])


def test_a_night_without_seats_drawn_lists_nobody_and_an_unknown_night_is_not_found(client, night):
    assert seats(client, night)["seats"] == []
    for path in (f"/api/events/{night.id + 999}/seats", f"/api/events/{2**63}/seats", "/api/events/x/seats"):
        response = client.get(path)
        assert response.status_code == 404 and "error" in response.get_json()
