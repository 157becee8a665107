"""The organiser's month and season views: full pages and htmx fragments (R-STD, R-QUAL, R-FIN)."""
from tests.conftest import login
from tests.fixtures.results import five_player_night, seed_results


def seeded(league):
    seed_results(league, five_player_night("2026-10-07", "Rose", ["Old Timer", "B1", "C1", "D1", "E1"]))
    seed_results(league, five_player_night("2026-11-03", "Rose", ["O'Brien <b>", "Bob", "Cat", "Dan", "Eve"]) +
                 five_player_night("2026-11-05", "Crown", ["O'Brien <b>", "Gus", "Hal", "Ivy", "Jo", "Kit"]))


def test_month_view_needs_an_organiser_login(client, league, organiser):
    assert client.get("/organiser/harbour-league/months/2026-11").status_code == 302
    login(client, "host", "pw-host")
    assert client.get("/organiser/harbour-league/months/2026-11").status_code == 403


def test_r_std_1_month_view_full_page(client, league, organiser):
    seeded(league)
    login(client, "organiser", "pw-organiser")
    assert client.get("/organiser/").headers["Location"] == "/organiser/harbour-league/months/2026-11"
    page = client.get("/organiser/harbour-league/months/2026-11")
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and "<html" in html and "November 2026" in html
    assert page.headers["Vary"] == "HX-Request" or "HX-Request" in page.headers["Vary"]
    # 250 + 275 (5 then 6 players, R-PTS-2); the name is text, never markup
    assert "O&#39;Brien &lt;b&gt;" in html and "<b>" not in html and "525" in html
    # R-QUAL-2: O'Brien's second top-5 passes down to Kit (6th)
    assert "Kit" in html.split("Monthly Final tickets")[1].split("Top-10")[0]
    assert "25,000" in html  # R-FIN: High-roller Final stack after two nights
    assert 'href="/organiser/harbour-league/months/2026-10"' in html


def test_month_view_fragment_for_htmx(client, league, organiser):
    seeded(league)
    login(client, "organiser", "pw-organiser")
    fragment = client.get("/organiser/harbour-league/months/2026-10", headers={"HX-Request": "true"})
    html = fragment.get_data(as_text=True)
    assert fragment.status_code == 200 and "<html" not in html and html.lstrip().startswith('<section id="month"')
    assert "Old Timer" in html and "HX-Request" in fragment.headers["Vary"]
    restore = client.get("/organiser/harbour-league/months/2026-10",
                         headers={"HX-Request": "true", "HX-History-Restore-Request": "true"})
    assert "<html" in restore.get_data(as_text=True)


def test_an_empty_month_says_so(client, league, organiser):
    login(client, "organiser", "pw-organiser")
    html = client.get("/organiser/harbour-league/months/2025-02").get_data(as_text=True)
    assert "No results this month: they come from its settled nights" in html
    assert "No tickets yet: the top 5 of each nightly game this month earn one." in html


def test_bad_month_or_other_league_is_not_found(client, league, organiser):
    login(client, "organiser", "pw-organiser")
    assert client.get("/organiser/harbour-league/months/2026-13").status_code == 404
    assert client.get("/organiser/harbour-league/months/november").status_code == 404
    assert client.get("/organiser/someone-else/months/2026-11").status_code == 404


def test_r_std_2_season_view_page_and_fragment(client, league, organiser):
    seeded(league)
    login(client, "organiser", "pw-organiser")
    page = client.get("/organiser/harbour-league/seasons/2026")
    assert page.status_code == 200 and "2026 season" in page.get_data(as_text=True)
    assert "O&#39;Brien &lt;b&gt;" in page.get_data(as_text=True)
    fragment = client.get("/organiser/harbour-league/seasons/2026", headers={"HX-Request": "true"})
    assert "<html" not in fragment.get_data(as_text=True) and "HX-Request" in fragment.headers["Vary"]
    assert client.get("/organiser/harbour-league/seasons/1066").status_code == 404
