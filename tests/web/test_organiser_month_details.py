"""The small things an organiser meets every month (R-MEM-1, R-MEM-2, R-QUAL-1, R-PTS-5): the ban form
says its reason is shown to the player; every organiser page is in the menu; the month's names and
nights are links; the host's night list names each night's type; two nights at one venue on one day
are told apart in the tickets; an import says "1 night" and counts no-shows out of its players; the
merge suggestions offer the likely typos, not every Archie."""
import re
from html import unescape

import pytest

from league.results_file import parse_results
from services import results
from services.models import Event, Member
from tests.conftest import login
from tests.fixtures.months import final_night
from tests.fixtures.results import HEADER, five_player_night, seed_results
from tests.fixtures.rows import member
from tests.web.test_organiser_data import confirm, token_of, upload
from wiring.extensions import db

BASE = "/organiser/harbour-league"


@pytest.fixture
def olive(client, organiser):
    login(client, "organiser", "pw-organiser")
    return client


def page(client, path: str) -> str:
    return unescape(client.get(path).get_data(as_text=True))


def test_r_mem_2_the_ban_form_says_the_player_sees_the_reason_word_for_word(olive, league):
    seed_results(league, five_player_night("2026-11-03", "Rose", ["Ann", "Bob", "Cat", "Dan", "Eve"]))
    shown = page(olive, f"{BASE}/members/{member('Ann').id}")
    assert "Reason (recorded, and shown to Ann)" in shown
    assert "Ann sees this reason word for word when they try to check in or pre-register" in shown


def test_every_organiser_page_is_one_tap_from_the_menu(olive, league):
    shown = page(olive, f"{BASE}/months/2026-11")
    menu = shown.split('<details class="menu">')[1].split("</details>")[0]
    for path, words in ((f"{BASE}/nights", "Nights"), (f"{BASE}/members", "Members"), (f"{BASE}/setup", "Venues and hosts"),
                        (f"{BASE}/settings", "Settings"), (f"{BASE}/data", "Import and export")):
        assert f'<a href="{path}">{words}</a>' in menu
        assert olive.get(path).status_code == 200


def test_the_months_names_and_nights_are_links(olive, league):
    seed_results(league, five_player_night("2026-11-03", "Rose", ["Ann", "Bob", "Cat", "Dan", "Eve"]))
    night = db.session.scalar(db.select(Event))
    shown = page(olive, f"{BASE}/months/2026-11")
    standings = shown.split('id="pack-standings"')[1].split("</section>")[0]
    assert f'<a href="{BASE}/members/{member("Ann").id}">Ann</a>' in standings
    assert shown.count(f'href="/events/{night.id}/results"') >= 2  # its tickets and its row in Night by night
    printed = page(olive, f"{BASE}/months/2026-11/print")
    assert f"{BASE}/members/" not in printed  # paper has no links to follow


def test_the_hosts_night_list_names_each_nights_type(client, league, november):
    final_night(league, november["venue"], "top10_shootout", date=league.today(), status="scheduled")
    login(client, "host", "pw-host")
    assert re.search(r"Rose &amp; Crown · .*19:00 · Top-10 Shoot-out for \w+ \d{4}</a>",
                     client.get("/host/").get_data(as_text=True))


def test_r_qual_1_two_nights_at_one_venue_on_one_day_are_told_apart_in_the_tickets(olive, league):
    rows = "".join(f"2026-11-03,{start},Rose,nightly,{p},{name},\n" for start, names in (
        ("18:00", ["Ann", "Bob", "Cat"]), ("21:30", ["Dan", "Eve", "Fay"])) for p, name in enumerate(names, 1))
    results.import_results(league, parse_results(HEADER + rows))
    db.session.commit()
    tickets = olive.get(f"{BASE}/months/2026-11/tickets.csv").get_data(as_text=True)
    assert "Ann,2026-11-03,18:00,Rose" in tickets and "Dan,2026-11-03,21:30,Rose" in tickets
    api = olive.get("/api/leagues/harbour-league/qualifiers?month=2026-11").get_json()["monthly_final"]
    assert {(t["player"], t["start_time"]) for t in api} >= {("Ann", "18:00"), ("Dan", "21:30")}
    shown = " ".join(re.sub(r"<[^>]+>", "", page(olive, f"{BASE}/months/2026-11")).split())
    assert "Tue 03 Nov 18:00 · Rose" in shown and "Tue 03 Nov 21:30 · Rose" in shown
    printed = page(olive, f"{BASE}/months/2026-11/print")
    assert "Tue\u00a003\u00a0Nov 18:00 · Rose: 1 Ann" in printed and "Tue\u00a003\u00a0Nov 21:30 · Rose: 1 Dan" in printed


def test_an_import_of_one_night_says_so_and_counts_a_no_show_out_of_its_players(olive, league):
    body = HEADER + "2026-11-03,19:00,Rose,nightly,1,Ann,\n2026-11-03,19:00,Rose,nightly,2,Bob,\n" \
                    "2026-11-03,19:00,Rose,nightly,,Cat,no_show\n"
    preview = unescape(upload(olive, body).get_data(as_text=True))
    row = re.search(r'2026-11-03 19:00</span><span class="where">Rose · nightly</span></td>\s*<td class="num">(\d+)</td>',
                    preview)
    assert row and row.group(1) == "2"  # R-PTS-5: Cat never took a seat
    done = " ".join(unescape(confirm(olive, token_of(preview)).get_data(as_text=True)).split())
    assert "Imported 3 results from 1 night (3 new members, 1 new venue)" in done


def test_r_mem_1_merge_suggestions_are_the_likely_typos_not_every_archie(olive, league):
    for name in ("Archie Smith", "Archie Smyth", "Archie Jones", "Archie", "Smith Archie", "Archibald Smith"):
        db.session.add(Member.named(league.id, name))
    db.session.commit()
    shown = page(olive, f"{BASE}/members/{member('Archie Smith').id}")
    merge = shown.split('id="merge"')[1].split("</details>")[0]
    offered = set(re.findall(r'<li><a href="[^"]+">([^<]+)</a>', merge))
    assert offered == {"Archie Smyth", "Smith Archie", "Archibald Smith"}  # not Archie Jones, nor a lone Archie
