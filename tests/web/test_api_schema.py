"""The JSON API against its OpenAPI document (blueprints/api.py): every /api/ rule documented, every
documented path answering as described, and schemathesis fuzzing each one through the WSGI app
(bounded, derandomized examples: no 5xx, every answer conforming to the document)."""
import datetime as dt
import re

import pytest
import schemathesis
from hypothesis import HealthCheck, settings

from blueprints.api import document
from services.models import Event, Member, User, Venue
from tests.fixtures.results import five_player_night, seed_results
from wiring.extensions import db

pytestmark = pytest.mark.both_databases("generated query values (ids past the integer range, odd text) reach the SQL")


def _documented(rule: str) -> str:
    return re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule)


@pytest.fixture
def seeded(app, league, organiser):
    """A league with a settled night (ticket and all) and a running night with a clock."""
    members = ["Ann", "Bob", "Cat", "Dan", "Eve"]
    seed_results(league, five_player_night("2026-11-03", "Rose", members))
    db.session.scalar(db.select(Member).where(Member.name == "Ann")).contact = "ann@example.org"
    venue = db.session.scalar(db.select(Venue).where(Venue.name == "Rose"))
    host = db.session.scalar(db.select(User).where(User.username == "host"))
    running = Event(league_id=league.id, venue_id=venue.id, event_type="nightly", date=league.today(),
                    start_time=dt.time(19, 0), host_id=host.id, status="running")
    db.session.add(running)
    db.session.commit()
    settled = db.session.scalar(db.select(Event).where(Event.status == "settled"))
    ann = db.session.scalar(db.select(Member).where(Member.name == "Ann"))
    return {"slug": league.slug, "settled": settled.id, "running": running.id, "member": ann.id}


def test_every_api_rule_is_documented(app):
    rules = {_documented(rule.rule) for rule in app.url_map.iter_rules() if rule.rule.startswith("/api/")}
    assert rules == set(document()["paths"])
    for rule in app.url_map.iter_rules():
        if rule.rule.startswith("/api/"):
            assert rule.methods - {"HEAD", "OPTIONS"} == {"GET"}, rule.rule  # reads only


def test_the_document_is_served(client):
    response = client.get("/api/openapi.json")
    assert response.status_code == 200 and response.get_json() == document()
    assert response.get_json()["openapi"].startswith("3.")


def test_every_documented_path_answers_as_described(app, client, seeded):
    schema = schemathesis.openapi.from_wsgi("/api/openapi.json", app)
    concrete = {"{slug}": seeded["slug"], "{event_id}": str(seeded["settled"]), "{member_id}": str(seeded["member"])}
    query = {"/api/leagues/{slug}/standings": "?month=2026-11", "/api/leagues/{slug}/qualifiers": "?month=2026-11",
             "/api/leagues/{slug}/nights": "?month=2026-11"}
    for path in document()["paths"]:
        url = path
        for name, value in concrete.items():
            url = url.replace(name, value)
        if path == "/api/events/{event_id}/clock":
            url = url.replace(str(seeded["settled"]), str(seeded["running"]))
        response = client.get(url + query.get(path, ""))
        assert response.status_code == 200, url
        assert response.headers["Content-Type"] == "application/json"
        schema[path]["GET"].validate_response(response)
        assert response.get_json(), url  # something to read, not an empty answer


def test_the_api_shows_public_data_only(client, seeded):
    texts = [client.get(url).get_data(as_text=True) for url in (
        f"/api/leagues/{seeded['slug']}", f"/api/events/{seeded['settled']}/results",
        f"/api/leagues/{seeded['slug']}/nights?month=2026-11", f"/api/leagues/{seeded['slug']}/standings?year=2026",
        f"/api/leagues/{seeded['slug']}/members/{seeded['member']}/road")]
    codes = db.session.scalars(db.select(Member.card_code)).all()
    check_in = db.session.scalars(db.select(Event.check_in_code)).all()
    response = client.get(f"/api/leagues/{seeded['slug']}/standings?year=2026", headers={"Origin": "https://x.example"})
    assert response.headers["Access-Control-Allow-Origin"] == "*"  # the website's script may read it
    assert "Access-Control-Allow-Credentials" not in response.headers  # never with anyone's cookies
    for text in texts:
        assert "ann@example.org" not in text and "contact" not in text
        assert not any(code in text for code in codes + check_in)


def test_r_pts_night_results_json(client, seeded):
    data = client.get(f"/api/events/{seeded['settled']}/results").get_json()
    assert data["night"]["date"] == "2026-11-03" and data["night"]["venue"] == "Rose"
    assert data["night"]["players"] == 5 and data["night"]["status"] == "settled"
    assert [(r["position"], r["player"], r["points"]) for r in data["results"]] == [
        (1, "Ann", 250), (2, "Bob", 225), (3, "Cat", 200), (4, "Dan", 175), (5, "Eve", 150)]
    assert [r["monthly_final_ticket"] for r in data["results"]] == [True, True, True, True, True]
    # a night not settled has no results yet
    refused = client.get(f"/api/events/{seeded['running']}/results")
    assert refused.status_code == 404 and "not settled" in refused.get_json()["error"]


def test_nights_of_a_month_and_coming(client, seeded):
    month = client.get(f"/api/leagues/{seeded['slug']}/nights?month=2026-11").get_json()["nights"]
    assert [n["id"] for n in month if n["status"] == "settled"] == [seeded["settled"]]
    settled = next(n for n in month if n["id"] == seeded["settled"])
    assert settled["results"] == f"/api/events/{seeded['settled']}/results" and settled["clock"] is None
    coming = client.get(f"/api/leagues/{seeded['slug']}/nights").get_json()["nights"]
    assert [n["id"] for n in coming] == [seeded["running"]]
    assert coming[0]["clock"] == f"/api/events/{seeded['running']}/clock"
    bad = client.get(f"/api/leagues/{seeded['slug']}/nights?month=2026-1")
    assert bad.status_code == 400 and "bad month" in bad.get_json()["error"]


def test_league_list_and_detail(client, seeded):
    assert client.get("/api/leagues").get_json() == {
        "leagues": [{"name": "Harbour League", "slug": "harbour-league", "kind": "free"}]}
    detail = client.get("/api/leagues/harbour-league").get_json()
    assert detail["venues"] == ["Rose"] and detail["months"] == ["2026-11"]


def test_api_refusals_are_json(client, seeded):
    for url, code in (("/api/nothing-here", 404), ("/api/leagues/a/b/c", 404), ("/api/events/1/results/x", 404),
                      (f"/api/events/{2**63}/clock", 404), ("/api/leagues/nope", 404),
                      (f"/api/leagues/{seeded['slug']}/members/{2**63}/road", 404),
                      (f"/api/leagues/nope/members/{seeded['member']}/road", 404)):
        response = client.get(url)
        assert response.status_code == code and "error" in response.get_json(), url
    posted = client.post("/api/time")
    assert posted.status_code == 405 and "error" in posted.get_json() and "GET" in posted.headers["Allow"]
    assert client.get("/no-such-page").mimetype == "text/html"  # only /api/ answers JSON


fuzzed = schemathesis.openapi.from_dict(document())


@fuzzed.parametrize()
@settings(max_examples=25, derandomize=True, database=None, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                 HealthCheck.filter_too_much])
def test_schemathesis_fuzzes_the_api(case, app, seeded):
    """No input answers 5xx, and every answer (refusals included) is as the document says."""
    # The WSGI transport reads the body as sent, and Flask-Compress would brotli it: ask for it plain.
    case.call_and_validate(app=app, headers={"Accept-Encoding": "identity"})


def test_the_api_answers_what_the_command_line_prints(client, runner, seeded):
    """DESIGN.md "Interfaces": the same data as `flask league … --json`."""
    import json
    for command, url in ((["standings", "--month", "2026-11"], "standings?month=2026-11"),
                         (["standings", "--year", "2026"], "standings?year=2026"),
                         (["qualifiers", "--month", "2026-11"], "qualifiers?month=2026-11")):
        printed = runner.invoke(args=["league", *command, "--league", "Harbour League", "--json"])
        assert printed.exit_code == 0, printed.output
        assert json.loads(printed.output) == client.get(f"/api/leagues/{seeded['slug']}/{url}").get_json()
