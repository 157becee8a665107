"""The organiser's month-end pack and season (R-STD-1/2, R-QUAL-2, R-QUAL-4, R-FIN, R-PAY-3): the pack's
page and fragment, the print page, the PDF, each CSV, the pictures and the share image; refused to
hosts and players; a bad month, table or picture is not found. The month is tests/fixtures/pack.py."""
import csv
import io

import pytest

from services import pack
from services.models import League
from tests.conftest import login
from tests.fixtures import pack as month
from wiring.extensions import db

BASE = "/organiser/harbour-league"
NOV = f"{BASE}/months/2026-11"
ROUTES = [NOV, f"{NOV}/print", f"{NOV}/pack.pdf", f"{NOV}/standings.csv", f"{NOV}/charts/race.svg",
          f"{NOV}/charts/attendance.svg", f"{NOV}/share.png", f"{BASE}/seasons/2026", f"{BASE}/seasons/2026.csv"]


@pytest.fixture
def seeded(league, organiser):
    month.seed(league)
    return league


@pytest.fixture
def olive(client, seeded):
    login(client, "organiser", "pw-organiser")
    return client


def rows(text: str) -> list[list[str]]:
    assert text.startswith("\ufeff")  # the byte-order mark Excel on Windows needs to read UTF-8
    return list(csv.reader(io.StringIO(text.removeprefix("\ufeff"))))


def test_r_pay_3_the_months_books_balance_to_the_dollar(seeded):
    found = pack.month_pack(db.session.get(League, seeded.id), "2026-11")
    books = found.ledger
    assert (books.taken_in, books.guarantees, books.brought_forward) == (
        month.EXPECTED["taken_in"], month.EXPECTED["guarantees"], month.EXPECTED["brought_forward"])
    assert (books.paid_out, books.fees, books.carried, books.top50_pool) == (
        month.EXPECTED["paid_out"], month.EXPECTED["fees"], month.EXPECTED["carried"], month.EXPECTED["top50"])
    assert books.balances and books.money_in == 480 + 600 + 25
    assert [(n.date.isoformat(), n.venue, n.players, n.new_members, n.entries, n.taken_in, n.paid_out)
            for n in found.nights] == month.EXPECTED["nights"]
    assert [n.deal for n in found.nights] == [False, True, False]
    final = found.nights[2].ledger
    assert (final.pool, final.drawn, final.paid_out, final.left) == (500 + 90 + 25, 25, 615, 0)  # R-FIN, R-PAY-3
    assert books.left_in_pools == 0


def test_r_qual_2_r_qual_4_r_fin_the_pack_marks_pass_downs_ties_and_stacks(seeded):
    found = pack.month_pack(db.session.get(League, seeded.id), "2026-11")
    assert [(r.rank, r.player, r.points, r.events) for r in found.table] == [
        (int(a), b, int(c), int(d)) for a, b, c, d in month.EXPECTED["standings"]]
    assert [(t.player, t.date.isoformat(), t.position, t.passed_down) for t in found.tickets] == month.EXPECTED["tickets"]
    assert len(found.shootout) == 11
    assert {s.player for s in found.shootout if s.tied_on_10th} == month.EXPECTED["tied_on_10th"]
    stacks = {h.player: h.stack for h in found.highroller}
    assert {name: stacks[name] for name in month.EXPECTED["stacks"]} == month.EXPECTED["stacks"]
    assert [h.player for h in found.highroller if h.early] == ["Gus"]
    assert found.race["Ann"][-1][1] == 550 and [p for _, p in found.race["Ann"]] == [275, 550]


def test_r_pay_3_the_season_shows_its_top_50_months_and_pool(olive, seeded):
    found = pack.season_pack(db.session.get(League, seeded.id), 2026)
    assert found.months == ["2026-10", "2026-11"]
    ann = next(r for r in found.table if r.player == "Ann")
    assert found.by_month[ann.key] == {"2026-10": 250, "2026-11": 550} and ann.points == 800
    # October's five players and November's twelve entries at $3 each.
    assert found.ledger.top50_pool == 5 * 3 + 12 * 3 and found.ledger.balances
    page = olive.get(f"{BASE}/seasons/2026")
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and "Top-50 prize pool" in html and "$51" in html
    assert "Balances to the dollar" in html and 'href="/organiser/harbour-league/months/2026-10"' in html
    table = rows(olive.get(f"{BASE}/seasons/2026.csv").get_data(as_text=True))
    assert table[0] == ["rank", "player", "points", "nights", "2026-10", "2026-11"]
    assert ["1", "Ann", "800", "3", "250", "550"] in table
    fragment = olive.get(f"{BASE}/seasons/2026", headers={"HX-Request": "true"})
    assert "<html" not in fragment.get_data(as_text=True)


def test_the_pack_page_has_contents_and_every_section(olive):
    page = olive.get(NOV)
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and "<html" in html
    for anchor in ("pack-standings", "pack-tickets", "pack-shootout", "pack-highroller", "pack-venues", "pack-ledger",
                   "pack-pictures"):
        assert f'href="#{anchor}"' in html and f'id="{anchor}"' in html
    tickets = html.split('id="pack-tickets"')[1].split('id="pack-shootout"')[0]
    assert tickets.count("passed down</span>") == 1 and "Kai" in tickets
    shootout = html.split('id="pack-shootout"')[1].split('id="pack-highroller"')[0]
    assert shootout.count("tied on 10th</span>") == 2
    assert "22,000" in html and "incl. +2,000 early" in html and "25,000" in html
    assert "Balances to the dollar: $1,105 in = $1,105 out" in html
    assert "&#61;Eli+1" in html or "=Eli+1" in html
    assert 'src="/organiser/harbour-league/months/2026-11/charts/race.svg"' in html
    fragment = olive.get(NOV, headers={"HX-Request": "true"})
    assert fragment.get_data(as_text=True).lstrip().startswith('<section id="month"')


def test_the_print_page_is_a4_and_has_no_script(olive):
    page = olive.get(f"{NOV}/print")
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and "<script" not in html and "print.css" in html
    assert "as CSV" not in html and 'id="pack-ledger"' in html
    css = olive.get("/static/organiser/print.css").get_data(as_text=True)
    assert "size: A4" in css


def test_r_std_1_the_printed_pack_lists_the_leaders_with_ties_and_says_how_many_more(olive, monkeypatch):
    """A big league's printed pack (and its PDF) stops after the leaders: every row stays on the
    screen and in the CSV, and the page says how many it left out."""
    from services import pack
    standings = [[rank, name[1:] if name[:2] in ("'=", "'+", "'-", "'@") else name, *rest]  # the CSV's escape undone
                 for rank, name, *rest in rows(olive.get(f"{NOV}/standings.csv").get_data(as_text=True))[1:]]
    assert len(standings) > 4
    monkeypatch.setattr(pack, "PRINT_ROWS", 3)
    html = olive.get(f"{NOV}/print").get_data(as_text=True)
    printed = [row for row in standings if int(row[0]) <= 3 or row[0] == standings[2][0]]  # ties on 3rd kept
    from markupsafe import escape
    for row in standings:
        assert (f">{escape(row[1])}<" in html.split('id="pack-tickets"')[0]) == (row in printed), row
    assert f"… and {len(standings) - len(printed)} more players: every row is in the pack's standings CSV" in html
    screen = olive.get(NOV).get_data(as_text=True)
    assert "every row is in the pack" not in screen and all(f">{escape(row[1])}<" in screen for row in standings)


def test_r_qual_2_r_fin_the_printed_pack_has_every_ticket_entrant_and_night_a_line_each(olive):
    """On paper the long tables are a line each (a night's tickets, the High-roller Final's entrants, a
    night, a night's buy-ins): every holder with their place and pass-down mark, every entrant with
    their stack, every night with its figures, as on the screen and in the CSVs."""
    import re

    from markupsafe import escape
    html = olive.get(f"{NOV}/print").get_data(as_text=True)
    section = html.split('id="pack-tickets"')[1].split('id="pack-shootout"')[0]
    lines = re.findall(r"<li>(.*?)</li>", section, flags=re.S)
    tickets = [[name[1:] if name[:2] in ("'=", "'+", "'-", "'@") else name, *rest]  # the CSV's escape undone
               for name, *rest in rows(olive.get(f"{NOV}/tickets.csv").get_data(as_text=True))[1:]]
    nights = {(t[1], t[2], t[3]) for t in tickets}
    assert len(lines) == len(nights) and "<tr" not in section  # a night a line, not a ticket a row
    for player, date, start, venue, position, passed in tickets:
        day = pack.dt.date.fromisoformat(date).strftime("%a\u00a0%d\u00a0%b") + (f" {start}" if start else "")
        line = next(li for li in lines if li.startswith(f"{day} · {escape(venue)}:"))
        assert f"{position} {escape(player)}" in line, (player, line)
        assert (f"{position} {escape(player)} <span class=\"mark\">↓ passed down</span>" in line) == (passed == "yes")
    assert section.count("↓ passed down") == sum(t[5] == "yes" for t in tickets) == 1
    entrants = html.split('id="pack-highroller"')[1].split('id="pack-venues"')[0]
    entrant_lines = re.findall(r"<li>(.*?)</li>", entrants, flags=re.S)
    entrant_rows = rows(olive.get(f"{NOV}/highroller.csv").get_data(as_text=True))[1:]
    assert len(entrant_lines) == len(entrant_rows) > 2 and "<tr" not in entrants
    for line, (player, nights, stack, early) in zip(entrant_lines, entrant_rows, strict=True):
        player = player[1:] if player[:2] in ("'=", "'+", "'-", "'@") else player
        assert line.startswith(f"{escape(player)} · {nights} night") and f" · {int(stack):,} chips" in line
        assert ("incl. +2,000 early" in line) == (early == "yes")
    venues = html.split('id="pack-venues"')[1].split('id="pack-ledger"')[0]
    night_rows = rows(olive.get(f"{NOV}/nights.csv").get_data(as_text=True))[1:]
    night_lines = re.findall(r"<li>(.*?)</li>", venues.split('id="nights-title"')[1], flags=re.S)
    assert len(night_lines) == len(night_rows)
    for line, (_, venue, _, players, new, entries, taken_in, paid_out, _) in zip(night_lines, night_rows, strict=True):
        assert f"· {escape(venue)} ·" in line and f": {players} player" in line and f", {new} new, {entries} entr" in line
        assert f", ${int(taken_in):,} in, ${int(paid_out):,} paid" in line
    ledger = html.split('id="pack-ledger"')[1].split('id="pack-pictures"')[0]
    ledger_rows = rows(olive.get(f"{NOV}/ledger.csv").get_data(as_text=True))[1:-1]  # the last is the total
    ledger_lines = re.findall(r"<li>(.*?)</li>", ledger, flags=re.S)
    assert len(ledger_lines) == len(ledger_rows)
    for line, (_, venue, _, taken_in, _, _, _, _, _, pool, paid, _, _, to_final, to_top50, fee) in zip(
            ledger_lines, ledger_rows, strict=True):
        assert f"· {escape(venue)}: ${int(taken_in):,} in, pool ${int(pool):,}" in line
        assert f"${int(paid):,} paid, ${int(to_final):,} to final, ${int(to_top50):,} to Top 50, ${int(fee):,} fee" in line


def test_the_pdf_download(olive):
    page = olive.get(f"{NOV}/pack.pdf")
    assert page.status_code == 200 and page.mimetype == "application/pdf"
    assert page.data.startswith(b"%PDF-") and b"%%EOF" in page.data[-64:]
    assert page.headers["Content-Disposition"] == 'attachment; filename="harbour-league-2026-11-pack.pdf"'
    assert len(page.data) > 20_000  # its pages are rendered to PNG and looked at in tests/e2e/test_pack.py


@pytest.mark.parametrize("table", ["standings", "tickets", "shootout", "highroller", "nights", "venues", "ledger"])
def test_every_table_as_csv(olive, table):
    page = olive.get(f"{NOV}/{table}.csv")
    assert page.status_code == 200 and page.mimetype == "text/csv"
    assert page.headers["Content-Disposition"] == f'attachment; filename="harbour-league-2026-11-{table}.csv"'
    found = rows(page.get_data(as_text=True))
    assert len(found) >= 2 and all(len(row) == len(found[0]) for row in found)
    assert page.get_data().startswith(b"\xef\xbb\xbf")  # UTF-8's byte-order mark: "Zoë Nguyễn" in Excel


def test_csv_cells_that_start_a_formula_are_escaped(olive):
    standings = rows(olive.get(f"{NOV}/standings.csv").get_data(as_text=True))
    assert ["8", "'=Eli+1", "175", "1"] in standings
    tickets = rows(olive.get(f"{NOV}/tickets.csv").get_data(as_text=True))
    assert [row[:2] + row[3:] for row in tickets if row[0] == "Kai"] == [["Kai", "2026-11-10", "Crown", "6", "yes"]]
    ledger = rows(olive.get(f"{NOV}/ledger.csv").get_data(as_text=True))
    assert ledger[-1][:4] == ["Total", "", "", "480"]


def test_the_pictures_are_accessible_svg_without_script(olive):
    for name in ("attendance", "race"):
        page = olive.get(f"{NOV}/charts/{name}.svg")
        svg = page.get_data(as_text=True)
        assert page.status_code == 200 and page.mimetype == "image/svg+xml"
        assert "<script" not in svg and 'role="img"' in svg
        assert f'<title id="{name}-title">' in svg and f'<desc id="{name}-desc">' in svg
        assert svg.count("<desc") == 1 and "<circle" in svg  # pygal's tooltip data gone, its dots kept
        assert "script-src" not in page.headers["Content-Security-Policy"]
        assert "default-src 'none'" in page.headers["Content-Security-Policy"]
    race = olive.get(f"{NOV}/charts/race.svg").get_data(as_text=True)
    assert "Ann 550" in race  # the description tells the leaders' totals, not the colours
    attendance = olive.get(f"{NOV}/charts/attendance.svg").get_data(as_text=True)
    assert "Crown: 9 players over 2 nights" in attendance


def test_the_share_image_is_a_square_png(olive):
    from PIL import Image
    page = olive.get(f"{NOV}/share.png")
    assert page.status_code == 200 and page.mimetype == "image/png"
    image = Image.open(io.BytesIO(page.data))
    assert image.size == (1080, 1080)


@pytest.mark.parametrize("path", ROUTES)
def test_the_pack_is_refused_to_hosts_and_players(client, seeded, path):
    assert client.get(path).status_code == 302  # a player's phone, no login: to the login page
    login(client, "host", "pw-host")
    assert client.get(path).status_code == 403


@pytest.mark.parametrize("path", [
    f"{BASE}/months/2026-13", f"{BASE}/months/2026-13/print", f"{BASE}/months/2026-13/pack.pdf",
    f"{BASE}/months/november/standings.csv", f"{BASE}/months/2026-13/share.png",
    f"{BASE}/months/2026-00/charts/race.svg", f"{NOV}/secrets.csv", f"{NOV}/charts/pie.svg",
    "/organiser/someone-else/months/2026-11/pack.pdf", f"{BASE}/seasons/1066.csv"])
def test_a_bad_month_table_or_picture_is_not_found(olive, path):
    assert olive.get(path).status_code == 404


def test_an_empty_month_still_makes_a_pack(olive):
    page = olive.get(f"{BASE}/months/2025-02")
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and "No results this month: they come from its settled nights" in html and "Balances to the dollar: $0 in" in html
    assert olive.get(f"{BASE}/months/2025-02/share.png").status_code == 200
    assert olive.get(f"{BASE}/months/2025-02/pack.pdf").data.startswith(b"%PDF-")
    assert olive.get(f"{BASE}/months/2025-02/charts/race.svg").status_code == 200
