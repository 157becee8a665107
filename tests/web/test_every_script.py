"""The month-end pack draws every script its players write (R-STD-1: the standings name each player
as the league writes them): the share image picks, for each name, a font that has all its letters
(no hollow boxes, "tofu"), and a 73-letter name fits its line whole; the PDF embeds the fonts that
draw Chinese, Arabic, Devanagari and Thai names, and wraps the long name inside the page."""
import io
import subprocess
from types import SimpleNamespace

import pytest
from PIL import Image

from services import pack_pictures
from tests.conftest import login
from tests.fixtures.results import five_player_night, seed_results

NAMES = {"Chinese": "李小龍", "Japanese": "さくら", "Korean": "김민준", "Arabic": "محمد علي", "Devanagari": "अर्जुन शर्मा",
         "Thai": "สมชาย ใจดี", "Latin": "Zoë Nguyễn"}
LONG = "Maximilian Alexander Montgomery-Fitzgerald Wolfeschlegelsteinhausenberger"  # 73 letters


def test_the_long_name_is_73_letters():
    assert len(LONG) == 73


@pytest.mark.parametrize("script", list(NAMES))
@pytest.mark.parametrize("bold", [False, True])
def test_r_std_1_each_name_is_drawn_in_a_font_that_has_all_its_letters(script, bold):
    name = NAMES[script]
    path = pack_pictures.font_file_for(name, bold)
    assert path is not None
    assert {ord(ch) for ch in name if not ch.isspace()} <= pack_pictures._letters(path), (script, path)


def test_debian_s_noto_fonts_are_the_ones_chosen_for_what_dejavu_lacks():
    chosen = {script: pack_pictures.font_file_for(name).name for script, name in NAMES.items()}
    assert chosen["Devanagari"] == "NotoSansDevanagari-Regular.ttf"
    assert chosen["Thai"] == "NotoSansThai-Regular.ttf"
    assert chosen["Chinese"] == chosen["Japanese"] == chosen["Korean"] == "NotoSansCJK-Regular.ttc"
    assert chosen["Latin"] == chosen["Arabic"] == "DejaVuSans.ttf"  # DejaVu has Arabic's letters


def _ink(image: Image.Image, box) -> int:
    return sum(image.crop(box).convert("L").histogram()[129:])


def test_r_std_1_the_share_image_draws_every_script_not_boxes():
    """Each name's line is drawn (its ink), in the font share_png asks font_file_for for: the test above
    holds that font to having every letter, so none is a box."""
    table = [SimpleNamespace(rank=i + 1, player=name, points=1000 - i, key=i) for i, name in enumerate(NAMES.values())]
    pack = SimpleNamespace(league=SimpleNamespace(name="Harbour League"), label="November 2026", table=table)
    image = Image.open(io.BytesIO(pack_pictures.share_png(pack)))
    assert image.size == (1080, 1080)
    line = min(76, (1080 - 120 - 220) // len(table))
    for index in range(1, len(table)):  # the white lines (the first is dark on gold)
        top = 220 + index * line
        assert _ink(image, (182, top, 700, top + line - 14)) > 150, list(NAMES)[index]


def test_r_std_1_a_73_letter_name_is_wrapped_whole_on_two_lines():
    image = Image.new("RGB", (1080, 1080))
    draw = pack_pictures.ImageDraw.Draw(image)
    size, width, height = 46, 1080 - 72 - 110 - 72 - 40 - 120, 62  # a line's name box beside four-digit points
    lines, font = pack_pictures._name_fitted(draw, LONG, size, False, width, height)
    assert len(lines) == 2 and " ".join(lines) == LONG  # whole, broken between words
    assert all(draw.textlength(text, font=font) <= width for text in lines)
    assert 2 * font.size <= height
    short, short_font = pack_pictures._name_fitted(draw, "Ann", size, False, width, height)
    assert (short, short_font.size) == (["Ann"], size)  # a name that fits keeps the line's size
    a_word, word_font = pack_pictures._name_fitted(draw, "X" * 60, size, False, width, height)
    assert "".join(a_word) == "X" * 60 and len(a_word) == 2  # one long word: broken between letters
    endless, _ = pack_pictures._name_fitted(draw, "Wolfeschlegelsteinhausenberger " * 6, size, False, width, height)
    assert len(endless) == 2 and endless[1].endswith("…")  # only past two lines is a name cut short


def test_r_std_1_the_share_image_draws_the_long_name_within_its_line():
    table = [SimpleNamespace(rank=1, player="Ann", points=2_450, key=1),
             SimpleNamespace(rank=2, player=LONG, points=2_000, key=2),
             SimpleNamespace(rank=3, player="Bob", points=1_000, key=3)]
    pack = SimpleNamespace(league=SimpleNamespace(name="Harbour League"), label="November 2026", table=table)
    image = Image.open(io.BytesIO(pack_pictures.share_png(pack)))
    line = min(76, (1080 - 120 - 220) // 3)
    # the long name's ink stays between Ann's line and Bob's
    assert _ink(image, (182, 220 + line - 10, 1080 - 200, 220 + 2 * line - 12)) > 500
    assert _ink(image, (182, 220 + 2 * line - 12, 1080 - 200, 220 + 2 * line - 2)) == 0


def test_r_std_1_the_pdf_embeds_fonts_for_every_script_and_wraps_the_long_name(client, league, organiser, tmp_path):
    names = [LONG, NAMES["Chinese"], NAMES["Arabic"], NAMES["Devanagari"], NAMES["Thai"]]
    seed_results(league, five_player_night("2026-11-03", "Rose", names))
    login(client, "organiser", "pw-organiser")
    pdf = client.get("/organiser/harbour-league/months/2026-11/pack.pdf").get_data()
    (tmp_path / "pack.pdf").write_bytes(pdf)
    fonts = subprocess.run(["pdffonts", str(tmp_path / "pack.pdf")], check=True, capture_output=True,
                           text=True).stdout.replace("-", "")  # pdffonts writes "Noto-Sans-Thai"
    assert "NotoSansDevanagari" in fonts and "NotoSansThai" in fonts and "DejaVuSans" in fonts
    assert "NotoSansCJK" in fonts or "DroidSansFallback" in fonts
    text = subprocess.run(["pdftotext", "-enc", "UTF-8", str(tmp_path / "pack.pdf"), "-"], check=True,
                          capture_output=True, text=True).stdout
    assert NAMES["Chinese"] in text and "Montgomery" in text
    subprocess.run(["pdftoppm", "-r", "40", "-f", "1", "-l", "1", "-png", str(tmp_path / "pack.pdf"),
                    str(tmp_path / "page")], check=True)
    page = Image.open(next(tmp_path.glob("page*.png"))).convert("L")
    margin = round(page.width * 12 / 210)  # the A4 page's right margin (14 mm), less a little
    assert min(page.getpixel((x, y)) for x in range(page.width - margin, page.width) for y in range(page.height)) > 200
