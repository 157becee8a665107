"""JSON under /api/: the same shapes as the command line (DESIGN.md "Interfaces")."""
from tests.fixtures.results import five_player_night, seed_results


def test_r_std_1_standings_json(client, league):
    seed_results(league, five_player_night("2026-11-03", "Rose", ["Ann", "Bob", "Cat", "Dan", "Eve"]))
    data = client.get("/api/leagues/harbour-league/standings?month=2026-11").get_json()
    assert data == {"standings": [
        {"rank": 1, "player": "Ann", "points": 250, "events": 1},
        {"rank": 2, "player": "Bob", "points": 225, "events": 1},
        {"rank": 3, "player": "Cat", "points": 200, "events": 1},
        {"rank": 4, "player": "Dan", "points": 175, "events": 1},
        {"rank": 5, "player": "Eve", "points": 150, "events": 1}]}
    assert client.get("/api/leagues/Harbour League/standings?year=2026").get_json() == data


def test_r_qual_qualifiers_json(client, league):
    seed_results(league, five_player_night("2026-11-03", "Rose", ["Ann", "Bob", "Cat", "Dan", "Eve"]))
    data = client.get("/api/leagues/harbour-league/qualifiers?month=2026-11").get_json()
    assert set(data) == {"monthly_final", "top10_shootout", "highroller_final"}
    assert data["monthly_final"][0] == {"player": "Ann", "date": "2026-11-03", "start_time": "19:00", "venue": "Rose",
                                        "position": 1}
    assert data["highroller_final"][0] == {"player": "Ann", "events": 1, "starting_stack": 20000}
    assert [q["player"] for q in data["top10_shootout"]] == ["Ann", "Bob", "Cat", "Dan", "Eve"]


def test_bad_requests_get_json_errors(client, league):
    assert client.get("/api/leagues/nope/standings?month=2026-11").status_code == 404
    bad = client.get("/api/leagues/harbour-league/standings?month=2026-13")
    assert bad.status_code == 400 and "bad month" in bad.get_json()["error"]
    assert client.get("/api/leagues/harbour-league/standings").status_code == 400
    assert client.get("/api/leagues/harbour-league/standings?month=2026-11&year=2026").status_code == 400
    assert client.get("/api/leagues/harbour-league/qualifiers").status_code == 400
