"""The month-end pack on a phone (390×844): open it, jump to a section from the contents, download a
CSV and the PDF (its pages rendered to PNG with poppler's pdftoppm and saved for people to look at),
view the share image, and see both pictures drawn (R-STD-1, R-QUAL, R-FIN, R-PAY-3).
The month is tests/fixtures/pack.py."""
import csv
import io
import shutil
import subprocess

from playwright.sync_api import expect

from services import leagues
from services.models import User
from tests.e2e.conftest import SCREENSHOTS
from tests.fixtures import pack as month
from wiring.extensions import db

NOV = "/organiser/harbour-league/months/2026-11"


def seed(app):
    with app.app_context():
        league = leagues.create_league("Harbour League", "free")
        olive = User(username="olive", display_name="Olive", role="organiser", league_id=league.id)
        olive.set_password("pw-olive")
        db.session.add(olive)
        db.session.commit()
        month.seed(league)
        db.session.remove()


def test_the_month_end_pack_on_a_phone(live_server, phone, screenshot, tmp_path):
    seed(live_server.app)
    base = live_server.url
    page = phone(accept_downloads=True)
    phone.allow(r"favicon\.ico")  # a picture opened on its own: the browser asks for the site's icon
    page.goto(base + "/login")
    page.get_by_label("Username").fill("olive")
    page.get_by_label("Password").fill("pw-olive")
    page.get_by_role("button", name="Log in").click()
    page.goto(base + NOV)
    expect(page.get_by_role("heading", level=1)).to_have_text("November 2026")
    contents = page.get_by_role("navigation", name="In this pack")
    expect(contents).to_be_visible()
    screenshot(page, "pack-2026-11")
    wide = page.evaluate("""() => [...document.querySelectorAll('#month *')].filter(e => e.getBoundingClientRect().right > 390)
        .map(e => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right)).slice(0, 5)""")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390, wide

    # Jump to a section: the contents link scrolls the prize pools into view and marks it the target.
    contents.get_by_role("link", name="Prize pools").click()
    expect(page).to_have_url(base + NOV + "#pack-ledger")
    ledger = page.locator("#pack-ledger")
    expect(ledger).to_be_in_viewport()
    expect(ledger.get_by_role("status")).to_have_text("✓ Balances to the dollar: $1,105 in = $1,105 out.")
    page.screenshot(path=str(SCREENSHOTS / "pack-2026-11-ledger-viewport.png"))

    # The marks are words, not colours: Kai's ticket passed down, Fay and Kai tied on 10th.
    expect(page.locator("#pack-tickets tr.is-passed")).to_have_count(1)
    expect(page.locator("#pack-tickets tr.is-passed")).to_contain_text("Kai")
    expect(page.locator("#pack-shootout li.is-tied")).to_have_count(2)

    # Both pictures drawn: the SVGs load as images (no script, their own policy) and have a size.
    for name in ("attendance", "race"):
        image = page.locator(f'#pack-pictures img[src$="/charts/{name}.svg"]')
        image.scroll_into_view_if_needed()
        expect(image).to_be_visible()
        assert image.evaluate("img => img.complete && img.naturalWidth > 0"), f"the {name} picture did not draw"
        assert image.bounding_box()["width"] <= 390
    page.locator("#pack-pictures").screenshot(path=str(SCREENSHOTS / "pack-2026-11-pictures.png"))

    # A CSV download: the standings, a formula-looking name escaped.
    with page.expect_download() as got:
        page.locator("#pack-standings").get_by_role("link", name="Standings as CSV").click()
    download = got.value
    assert download.suggested_filename == "harbour-league-2026-11-standings.csv"
    text = download.path().read_text(encoding="utf-8")
    assert text.startswith("\ufeff")  # the byte-order mark Excel on Windows reads UTF-8 by
    rows = list(csv.reader(io.StringIO(text.removeprefix("\ufeff"))))
    assert rows[0] == ["rank", "player", "points", "nights"] and ["8", "'=Eli+1", "175", "1"] in rows

    # The PDF download, its pages rendered to PNG and saved to look at.
    page.locator("#contents").scroll_into_view_if_needed()
    with page.expect_download() as got:
        contents.get_by_role("link", name="PDF (A4)").click()
    pdf = got.value
    assert pdf.suggested_filename == "harbour-league-2026-11-pack.pdf"
    saved = tmp_path / "pack.pdf"
    pdf.save_as(saved)
    assert saved.read_bytes().startswith(b"%PDF-")
    if shutil.which("pdftoppm"):  # poppler-utils: `make test` and .ci/run install it (make pdf-libs)
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        subprocess.run(["pdftoppm", "-r", "60", "-png", str(saved), str(SCREENSHOTS / "pack-2026-11-pdf")], check=True)
        pages = sorted(SCREENSHOTS.glob("pack-2026-11-pdf-*.png"))
        assert len(pages) >= 5

    # The share image: square, opened on the phone like any picture.
    share = page.context.new_page()
    share.goto(base + NOV + "/share.png")
    size = share.evaluate("() => { const i = document.querySelector('img'); return [i.naturalWidth, i.naturalHeight]; }")
    assert size == [1080, 1080]
    share.close()

    # The print page: the same pack, no script, A4 print styles.
    page.goto(base + NOV + "/print")
    expect(page.get_by_role("heading", level=1)).to_have_text("November 2026")
    page.emulate_media(media="print")
    screenshot(page, "pack-2026-11-print")


def test_the_season_on_a_phone(live_server, phone, screenshot):
    seed(live_server.app)
    base = live_server.url
    page = phone()
    page.goto(base + "/login")
    page.get_by_label("Username").fill("olive")
    page.get_by_label("Password").fill("pw-olive")
    page.get_by_role("button", name="Log in").click()
    page.goto(base + NOV)
    page.get_by_role("link", name="2026 season").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("2026 season")
    expect(page.locator("#season-pool .big-number")).to_have_text("$51")
    months = page.get_by_role("region", name="Points month by month")
    expect(months.locator("tbody tr").first).to_contain_text("Ann")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    screenshot(page, "season-2026")
