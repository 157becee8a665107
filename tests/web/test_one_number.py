"""R-FIN, R-STD-1, R-QUAL-1..5: one player, one number. For a month with every kind of final (a Monthly
Final and a Top-10 Shoot-out settled with their prizes, a High-roller Final with a regular, a one-night
player and an early registration), every figure reads the same on the organiser's month page, its
print page and the PDF drawn from it, its CSVs, the public finals page, the API and the CLI; the host's
roster and check-in message give each High-roller finalist their own starting stack."""
import csv
import datetime as dt
import io
import json
import re
from html import unescape

import pytest

from blueprints.organiser import pack as pack_views
from tests.conftest import login
from tests.fixtures.host import host_op
from tests.fixtures.months import final_night, settled_final
from tests.fixtures.pages import text
from tests.fixtures.rows import entries

MONTH = "/organiser/harbour-league/months/2026-11"
# R-FIN: Ann played two November nights (25,000), Bob one (20,000), Cara one and pre-registered three days
# ahead (20,000 + 2,000).
STACKS = {"Ann": 25_000, "Bob": 20_000, "Cara": 22_000}


@pytest.fixture
def finals_month(client, league, november):
    """November's three finals in December: the Monthly Final and the Shoot-out settled with the free
    league's fixed prizes, the High-roller Final booked three days ahead with its entrants in."""
    venue = november["venue"]
    settled_final(league, venue, "monthly_final", [(november["Ann"], 300), (november["Bob"], 100)],
                  date=dt.date(2026, 12, 2))
    settled_final(league, venue, "top10_shootout", [(november["Bob"], 1_000), (november["Cara"], 500),
                                                    (november["Ann"], 0)], date=dt.date(2026, 12, 3))
    final = final_night(league, venue, "highroller_final", date=dt.date.today() + dt.timedelta(days=3),
                        status="scheduled", final_month="2026-11")
    login(client, "host", "pw-host")
    said = {name: text(host_op(client, final, f"{op}:{november[name].id}"))
            for name, op in (("Ann", "walk_in"), ("Bob", "walk_in"), ("Cara", "prereg"))}
    client.post("/logout")
    return {"final": final, "said": said}


def csv_rows(response) -> list[dict]:
    return list(csv.DictReader(io.StringIO(response.get_data(as_text=True).lstrip("\ufeff"))))


def stacks_in(html: str) -> dict[str, int]:
    """Each High-roller entrant's stack as a page shows it, from its High-roller Final section."""
    section = unescape(html.split('id="highroller"')[1].split("</section>")[0].split('id="pack-venues"')[0])
    found = {}
    for name in STACKS:
        match = re.search(rf"{name}\b.*?(\d{{2}},\d{{3}})", section, flags=re.S)
        found[name] = int(match.group(1).replace(",", "")) if match else None
    return found


def test_r_fin_one_stack_per_player_on_every_screen_file_api_and_cli(app, client, league, organiser, finals_month,
                                                                    monkeypatch):
    # The host's roster: each finalist's own stack, in the check-in message and on their row.
    assert "Checked in Ann: starting stack 25,000" in finals_month["said"]["Ann"]
    assert "Pre-registered Cara: starting stack 22,000" in finals_month["said"]["Cara"]
    assert {name: e.starting_stack for name, e in entries(finals_month["final"]).items()} == STACKS
    login(client, "host", "pw-host")
    roster = " ".join(re.sub(r"<[^>]+>", " ", text(client.get(f"/host/events/{finals_month['final'].id}/players")))
                      .split())
    assert "Ann 25,000" in roster and "Bob 20,000" in roster and "Cara 22,000" in roster
    client.post("/logout")

    login(client, "organiser", "pw-organiser")
    assert stacks_in(client.get(MONTH).get_data(as_text=True)) == STACKS
    assert stacks_in(client.get(f"{MONTH}/print").get_data(as_text=True)) == STACKS
    drawn = {}
    monkeypatch.setattr(pack_views, "_pdf_of", lambda html, css: drawn.setdefault("html", html) and b"%PDF-")
    assert client.get(f"{MONTH}/pack.pdf").status_code == 200
    assert stacks_in(drawn["html"]) == STACKS  # the page the PDF is drawn from
    assert {r["player"]: int(r["starting_stack"]) for r in csv_rows(client.get(f"{MONTH}/highroller.csv"))} == STACKS
    client.post("/logout")

    assert stacks_in(client.get("/leagues/harbour-league/months/2026-11/qualifiers").get_data(as_text=True)) == STACKS
    api = client.get("/api/leagues/harbour-league/qualifiers?month=2026-11").get_json()
    assert {q["player"]: q["starting_stack"] for q in api["highroller_final"]} == STACKS
    cli = app.test_cli_runner().invoke(args=["league", "qualifiers", "--league", "Harbour League", "--month",
                                             "2026-11", "--json"])
    assert {q["player"]: q["starting_stack"] for q in json.loads(cli.output)["highroller_final"]} == STACKS


def test_r_std_1_r_qual_r_pay_3_points_tickets_and_prizes_read_the_same_everywhere(app, client, league, organiser,
                                                                                   finals_month):
    api = client.get("/api/leagues/harbour-league/standings?month=2026-11").get_json()["standings"]
    points = {row["player"]: row["points"] for row in api}
    cli = app.test_cli_runner().invoke(args=["league", "standings", "--league", "Harbour League", "--month",
                                             "2026-11", "--json"])
    assert {row["player"]: row["points"] for row in json.loads(cli.output)["standings"]} == points
    qualifiers = client.get("/api/leagues/harbour-league/qualifiers?month=2026-11").get_json()
    login(client, "organiser", "pw-organiser")
    assert {r["player"]: int(r["points"]) for r in csv_rows(client.get(f"{MONTH}/standings.csv"))} == points
    assert [(r["player"], int(r["position"])) for r in csv_rows(client.get(f"{MONTH}/tickets.csv"))] == [
        (t["player"], t["position"]) for t in qualifiers["monthly_final"]]
    assert [(r["player"], int(r["points"])) for r in csv_rows(client.get(f"{MONTH}/shootout.csv"))] == [
        (q["player"], q["points"]) for q in qualifiers["top10_shootout"]]
    # Prizes: what each final's results say it paid is what the December ledger shows paid out.
    paid = 0
    for night in client.get("/api/leagues/harbour-league/nights?month=2026-12").get_json()["nights"]:
        if night.get("results"):
            paid += sum(r["prize"] for r in client.get(night["results"]).get_json()["results"])
    december = {r["night"]: r for r in csv_rows(client.get("/organiser/harbour-league/months/2026-12/ledger.csv"))}
    assert paid == int(december["Total"]["paid_out"]) == 1_900
    assert int(december["Total"]["league_funded"]) == 1_900 and int(december["Total"]["short"]) == 0
