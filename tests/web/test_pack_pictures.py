"""The pack's pictures, pinned on a wall: in the charts no two texts (title, axis labels, legend, the
names at the lines' ends) overlap and none is cut at the picture's edge, whatever the names (a
73-letter venue, Chinese names, lines ending level or a point apart); a week without a night is a gap
in its venue's line, not a dip to 0; the share image and the PDF draw Chinese names with a font that
has them; the printed pack wraps a long name inside the A4 page."""
import datetime as dt
import io
import re
import xml.etree.ElementTree as ET
from functools import cache
from types import SimpleNamespace

import pytest
from PIL import Image, ImageFont

from services import pack_pictures

SVG = "{http://www.w3.org/2000/svg}"
DEJAVU = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
CJK = "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf"
NOTO_CJK = "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"  # chosen first when installed
LONG = "The Royal Harbourside Hotel Public Bar, Bistro and Beer Garden (upstairs)"  # 73 letters
SIZES = {"title": 22, "legend": 16, "end-label": 15, "axis": 15}


@cache
def font(path: str, size: float):
    return ImageFont.truetype(path, round(size))


def width(text: str, size: float) -> float:
    """The text's width, each letter in DejaVu or, when DejaVu has none, the CJK font (as a browser falls back)."""
    dejavu, cjk = font(DEJAVU, size), font(CJK, size)
    return sum((dejavu if dejavu.getmask(c).getbbox() or c.isspace() else cjk).getlength(c) for c in text)


def text_boxes(svg: str) -> list[tuple[str, str, tuple[float, float, float, float]]]:
    """(kind, text, (left, top, right, bottom)) for every title, legend, x-axis label and end label."""
    root = ET.fromstring(svg)
    boxes = []

    def walk(node, dx, dy, kind):
        move = re.match(r"translate\(([-\d.]+)[ ,]+([-\d.]+)\)", node.get("transform", ""))
        if move:
            dx, dy = dx + float(move.group(1)), dy + float(move.group(2))
        classes = node.get("class", "").split()
        if "legends" in classes:
            kind = "legend"
        elif "axis" in classes and "x" in classes:
            kind = "axis"
        elif "end-labels" in classes:
            kind = "end-label"
        if node.tag == SVG + "text" and (node.text or "").strip():
            what = "title" if "title" in classes else kind
            if what:
                size = SIZES[what]
                x, y, wide = dx + float(node.get("x", 0)), dy + float(node.get("y", 0)), width(node.text, SIZES[what])
                left = x - wide / 2 if what in ("title", "axis") else x
                boxes.append((what, node.text, (left, y - size * 0.8, left + wide, y + size * 0.25)))
        for child in node:
            walk(child, dx, dy, kind)

    walk(root, 0, 0, None)
    return boxes


def assert_laid_out(svg: str) -> None:
    boxes = text_boxes(svg)
    assert boxes
    for kind, text, (left, top, right, bottom) in boxes:
        assert left >= 0 and top >= 0 and right <= pack_pictures.WIDTH and bottom <= pack_pictures.HEIGHT, (kind, text)
    for i, (kind, text, a) in enumerate(boxes):
        for other_kind, other, b in boxes[i + 1:]:
            apart = a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1]
            assert apart, f"{kind} {text!r} overlaps {other_kind} {other!r}"


def month(attendance=None, race=None):
    return SimpleNamespace(month="2026-11", label="November 2026", attendance=attendance or {}, race=race or {})


def nov(day):
    return dt.date(2026, 11, day)


ATTENDANCE = {LONG: [(nov(3), 24), (nov(24), 30)], "Anchor": [(nov(3), 12), (nov(10), 14), (nov(17), 15)],
              "Crown": [(nov(4), 12), (nov(11), 14), (nov(18), 16)], "李小龍's Place": [(nov(5), 8), (nov(19), 9)],
              "Rose & Crown": [(nov(6), 15), (nov(13), 15), (nov(20), 15), (nov(27), 15)]}
DAYS = [nov(d) for d in (3, 5, 10, 12, 17, 19, 24)]
RACE = {name: list(zip(DAYS, totals, strict=True)) for name, totals in {
    "Zoë Nguyễn": [750, 750, 1300, 1300, 1700, 2000, 2450], "李小龍": [550, 1100, 1100, 1650, 1650, 2000, 2440],
    "Aroha Te Whānau-ā-Apanui Ngāti Porou Kahungunu": [400, 800, 800, 1200, 1500, 1800, 2440],
    "Bea": [300, 600, 900, 1200, 1500, 1800, 2100], "Gus": [275, 575, 875, 1175, 1475, 1775, 2100],
    "O'Brien <b>": [250, 500, 750, 1000, 1250, 1500, 1750]}.items()}


@pytest.mark.parametrize("draw,data", [
    (pack_pictures.attendance_svg, month(attendance=ATTENDANCE)),
    (pack_pictures.race_svg, month(race=RACE)),
    (pack_pictures.attendance_svg, month(attendance={"Rose": [(nov(3), 10)]})),
    (pack_pictures.race_svg, month(race={"Ann": [(nov(3), 750)]})),
    (pack_pictures.attendance_svg, month()),
])
def test_no_text_of_a_chart_overlaps_another_or_is_cut(draw, data):
    svg = draw(data)
    assert_laid_out(svg)
    if data.race or data.attendance:
        ends = [text for kind, text, _ in text_boxes(svg) if kind == "end-label"]
        names = list(data.race or data.attendance)
        assert len(ends) == len(names)  # every line is named at its end, in full or cut with "…"
        assert all(end in names or (end.endswith("…") and any(n.startswith(end[:-1]) for n in names)) for end in ends)
    assert "O'Brien <b>" not in svg  # escaped


def test_a_week_without_a_night_is_a_gap_not_a_zero():
    svg = pack_pictures.attendance_svg(month(attendance={"Rose": [(nov(3), 10), (nov(24), 12)]}))
    dots = re.findall(r'<circle cx="[\d.]+" cy="([\d.]+)"', svg)
    assert len(dots) == 2 and len(set(dots)) == 2  # weeks 1 and 4 only: no dots at 0 between them


def test_the_share_image_draws_chinese_names_with_a_font_that_has_them():
    table = [SimpleNamespace(rank=1, player="李小龍", points=2_450, key=1)]
    pack = SimpleNamespace(league=SimpleNamespace(name="Harbour League"), label="November 2026", table=table)
    image = Image.open(io.BytesIO(pack_pictures.share_png(pack)))
    assert pack_pictures._font_for("李小龍", 40).path in (CJK, NOTO_CJK) and pack_pictures._font_for("Ann", 40).path == DEJAVU
    # The name's pixels are more than the hollow boxes DejaVu draws for letters it lacks.
    gold = image.crop((182, 220, 700, 280)).convert("L")
    assert sum(1 for v in gold.getdata() if v < 100) > 400


def test_the_pdf_draws_chinese_names_and_wraps_a_long_name_inside_the_page(client, league, organiser, tmp_path):
    import subprocess

    from tests.conftest import login
    from tests.fixtures.results import five_player_night, seed_results
    seed_results(league, five_player_night("2026-11-03", "Rose", [LONG.replace(",", ""), "李小龍", "Zoë Nguyễn", "Bo",
                                                                  "Cy"]))
    login(client, "organiser", "pw-organiser")
    pdf = client.get("/organiser/harbour-league/months/2026-11/pack.pdf").get_data()
    (tmp_path / "pack.pdf").write_bytes(pdf)
    fonts = subprocess.run(["pdffonts", str(tmp_path / "pack.pdf")], check=True, capture_output=True, text=True).stdout
    # the CJK letters come from a font that has them, not boxes (Noto CJK when installed, else Droid)
    assert "Noto-Sans-CJK" in fonts or "Droid-Sans-Fallback" in fonts
    subprocess.run(["pdftoppm", "-r", "40", "-f", "1", "-l", "1", "-png", str(tmp_path / "pack.pdf"),
                    str(tmp_path / "page")], check=True)
    page = Image.open(next(tmp_path.glob("page*.png"))).convert("L")
    margin = round(page.width * 12 / 210)  # the A4 page's right margin (14 mm), less a little
    ink = [page.getpixel((x, y)) for x in range(page.width - margin, page.width) for y in range(page.height)]
    assert min(ink) > 200  # nothing runs into the right margin
