"""The month-end pack's pictures (R-STD-1): attendance per venue and the leaders' points race as
server-rendered SVG (pygal, its script stripped: safe under the strict Content-Security-Policy), and a
square PNG of the top of the standings for the league's social pages (Pillow, DejaVu fonts)."""
from __future__ import annotations

import datetime as dt
import io
import re
from functools import cache
from pathlib import Path

import pygal
from markupsafe import escape
from PIL import Image, ImageDraw, ImageFont
from pygal.style import Style

from league.standings import top_with_ties
from services.pack import MonthPack

# Readable on white paper and on a phone's dark page alike (the chart is its own light card); the
# lines differ by dash as well as colour, and each ends with its name, so no colour has to be told.
COLOURS = ("#1f5fbf", "#c0392b", "#1e8449", "#7d3c98", "#b9770e", "#117a8b", "#5d6d7e", "#a93226")
DASHES = ("", "10,5", "3,4", "12,4,3,4", "18,6", "2,2", "8,3,2,3,2,3", "14,3,3,3,3,3")
# Every script's letters (see font_files): the pictures name the fonts in the order a name's font is
# chosen in, so a name measured here is drawn in the font it was measured in.
SCRIPT_FAMILIES = ("Noto Sans Arabic", "Noto Sans Devanagari", "Noto Sans Thai", "Noto Sans Bengali",
                   "Noto Sans Tamil", "Noto Sans Hebrew", "Noto Sans Georgian", "Noto Sans Armenian",
                   "Noto Sans Ethiopic", "Noto Sans Khmer")
FONT = ", ".join(f"'{family}'" for family in ("DejaVu Sans", *SCRIPT_FAMILIES, "Noto Sans CJK SC",
                                               "Droid Sans Fallback")) + ", 'Helvetica Neue', Arial, sans-serif"
STYLE = Style(
    background="#ffffff", plot_background="#ffffff", foreground="#1b1f24", foreground_strong="#1b1f24",
    foreground_subtle="#5d6d7e", opacity="1", opacity_hover="1", colors=COLOURS, font_family=FONT,
    title_font_size=22, label_font_size=15, major_label_font_size=15, legend_font_size=16, value_font_size=15,
    value_label_font_size=15, tooltip_font_size=15, no_data_font_size=22, stroke_width=3)
WIDTH, HEIGHT = 520, 440


def _accessible(svg: str, chart_id: str, title: str, description: str) -> str:
    """The SVG without pygal's scripts and their tooltip data (the page's CSP runs none, and the chart
    needs none), named and described for screen readers (role img, <title> and <desc>)."""
    svg = re.sub(r"<script\b[^>]*>.*?</script>", "", svg, flags=re.S)
    svg = re.sub(r"<script\b[^>]*/>", "", svg)
    # pygal's tooltip data (a <desc class=…> per value of each dot, for its script): nothing reads them
    # without the script, and they were half the PDF's picture drawing (WeasyPrint draws node by node).
    svg = re.sub(r'<desc class="[^"]*">[^<]*</desc>', "", svg)
    head = (f'<svg role="img" aria-labelledby="{chart_id}-title {chart_id}-desc" ')
    svg = svg.replace("<svg ", head, 1)
    opening_end = svg.index(">") + 1
    return (svg[:opening_end] + f'<title id="{chart_id}-title">{escape(title)}</title>'
            f'<desc id="{chart_id}-desc">{escape(description)}</desc>' + svg[opening_end:])


LEGEND_SIZE, LABEL_SIZE = 16, 15
LEGEND_TEXT_AT = 19  # pygal puts a legend's name this far right of its box's left edge
LINE_GAP = 3  # px between two end labels, and between a label and the picture's edge


def _line_chart(title: str, names: list[str]) -> pygal.Line:
    """A line chart whose legend fits: as many columns (up to 3) as the longest name allows, each name
    cut with "…" only when one column cannot hold it (the description names everyone in full)."""
    room = WIDTH - 2 * 12 - 40 - 100  # the plot's width: the picture less the margins and the y axis
    longest = max((_width(name, LEGEND_SIZE) for name in names), default=0)
    columns = max(1, min(3, int(room // (longest + LEGEND_TEXT_AT + 12)) if longest else 3))
    chart = pygal.Line(
        js=[], disable_xml_declaration=True, width=WIDTH, height=HEIGHT, style=STYLE, title=title,
        legend_at_bottom=True, legend_at_bottom_columns=columns, truncate_legend=-1, truncate_label=-1,
        show_dots=True, dots_size=4, print_labels=False, x_label_rotation=0, show_minor_x_labels=False, margin=12,
        margin_right=100, margin_bottom=44, legend_box_size=14, allow_interruptions=False,
        tooltip_fancy_mode=False, include_x_axis=True, no_data_text="No nights this month")
    chart.legend_room = room / columns - LEGEND_TEXT_AT - 12
    return chart


def _width(text: str, size: int) -> float:
    """How wide `text` is drawn at `size` px, in the fonts the picture names (DejaVu, the CJK fallback)."""
    return _font_for(text, size).getlength(text)


def _fitted(text: str, size: int, room: float) -> str:
    """`text`, cut with "…" to fit `room` px at `size`."""
    if _width(text, size) <= room:
        return text
    while text and _width(text + "…", size) > room:
        text = text[:-1]
    return text.rstrip(", ") + "…"


def _add(chart: pygal.Line, index: int, name: str, values: list[int | None]) -> None:
    # A week with no night is None, not 0: the line goes on to the next night, it does not dip to 0.
    dash = DASHES[index % len(DASHES)]
    chart.add(_fitted(name, LEGEND_SIZE, chart.legend_room), values,
              stroke_style={"width": 3, "dasharray": dash} if dash else {"width": 3})


def _end_labels(svg: str, names: list[str]) -> str:
    """Each line's name beside its last point, in the right margin, a line of its own: pushed down (and
    the stack up from the foot) so that no two overlap, and cut with "…" rather than run off the
    picture (the legend and the description name everyone in full)."""
    plot = re.search(r'<g transform="translate\(([\d.]+), ([\d.]+)\)" class="plot"><rect x="0" y="0" '
                     r'width="([\d.]+)" height="([\d.]+)"', svg)
    if plot is None or not names:
        return svg
    left, top, width, height = (float(v) for v in plot.groups())
    ends = []
    for index, name in enumerate(names):
        # The line's points: its path in the plot's first layer, its dots in the next (a lone night
        # has a dot and no path); the rightmost is the line's end.
        layers = re.findall(rf'<g class="series serie-{index} color-{index}">(.*?)</g>', svg, flags=re.S)
        points = re.findall(r'(?:[ML ]|cx=")([\d.]+)(?:"\s+cy="| )([\d.]+)', " ".join(layers))
        if points:
            ends.append((top + float(max(points, key=lambda p: float(p[0]))[1]), name))
    x = left + width + 8
    room = WIDTH - x - LINE_GAP
    step = LABEL_SIZE + LINE_GAP
    labels, floor = [], top + LABEL_SIZE * 0.8
    for y, name in sorted(ends):
        baseline = max(y + LABEL_SIZE * 0.35, floor)
        labels.append([baseline, _fitted(name, LABEL_SIZE, room)])
        floor = baseline + step
    lowest = HEIGHT - LINE_GAP - LABEL_SIZE * 0.25  # pushed below the foot: the stack moves up, a line apart
    for label in reversed(labels):
        label[0] = lowest = min(label[0], lowest)
        lowest -= step
    texts = "".join(f'<text x="{x:.1f}" y="{y:.1f}" class="end-label">{escape(text)}</text>' for y, text in labels)
    group = (f'<g class="end-labels" font-family="{escape(FONT)}" font-size="{LABEL_SIZE}" fill="#1b1f24">'
             f"{texts}</g>")
    return svg[:svg.rindex("</svg>")] + group + "</svg>"


def weeks(month_first: dt.date) -> list[tuple[dt.date, dt.date]]:
    """The month in weeks of seven days from the 1st (the last one shorter): [first, last]."""
    following = (month_first.replace(day=28) + dt.timedelta(days=4)).replace(day=1)
    spans, day = [], month_first
    while day < following:
        end = min(day + dt.timedelta(days=6), following - dt.timedelta(days=1))
        spans.append((day, end))
        day = end + dt.timedelta(days=1)
    return spans


def attendance_svg(pack: MonthPack) -> str:
    """Players per venue, week by week through the month (R-PTS-5's players: who took a seat)."""
    first = dt.date.fromisoformat(pack.month + "-01")
    spans = weeks(first)
    title = f"Players per venue, {pack.label}"
    venues = sorted(pack.attendance.items(), key=lambda item: item[0].casefold())
    chart = _line_chart(title, [venue for venue, _ in venues])
    chart.x_labels = [f"{a.day}–{b.day} {a:%b}" for a, b in spans]
    chart.x_labels_major_every = 1
    summary = []
    for index, (venue, nights) in enumerate(venues):
        weekly = [sum(p for day, p in nights if a <= day <= b) if any(a <= day <= b for day, _ in nights) else None
                  for a, b in spans]
        _add(chart, index, venue, weekly)
        summary.append(f"{venue}: {sum(p for _, p in nights)} players over {len(nights)} "
                       f"{'night' if len(nights) == 1 else 'nights'}")
    description = ("Players each week at each venue. " + "; ".join(summary) + ".") if summary else \
        "No nights this month."
    svg = _end_labels(chart.render(is_unicode=True), [venue for venue, _ in venues])
    return _accessible(svg, "attendance", title, description)


def race_svg(pack: MonthPack) -> str:
    """The leaders' points through the month, night by night (R-STD-1)."""
    title = f"Points race, {pack.label}"
    chart = _line_chart(title, list(pack.race))
    dates = next(iter(pack.race.values()), [])
    chart.x_labels = [day.strftime("%-d %b") for day, _ in dates]
    chart.x_labels_major_every = max(1, len(dates) // 5)
    summary = []
    for index, (player, series) in enumerate(pack.race.items()):
        _add(chart, index, player, [points for _, points in series])
        summary.append(f"{player} {series[-1][1] if series else 0}")
    description = ("Points so far after each night for the month's leaders. Final: " + ", ".join(summary) + ".") \
        if summary else "Nobody has scored this month."
    return _accessible(_end_labels(chart.render(is_unicode=True), list(pack.race)), "race", title, description)


# --- the share image -------------------------------------------------------------------------------

FONTS = Path("/usr/share/fonts/truetype/dejavu")
# Names in every script a league's players write: DejaVu draws Latin, Greek, Cyrillic and Arabic;
# Debian's Noto fonts (fonts-noto-core, fonts-noto-cjk: `make pdf-libs`) the rest: Devanagari, Thai,
# Chinese, Japanese, Korean; fonts-droid-fallback, where Noto CJK is missing, the CJK letters. Each
# name is drawn in the first of these that has all its letters (DejaVu's missing ones came out as boxes).
NOTO = Path("/usr/share/fonts/truetype/noto")
NOTO_CJK = Path("/usr/share/fonts/opentype/noto")
FALLBACK = Path("/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf")
SCRIPT_FONTS = tuple(family.replace(" ", "") for family in SCRIPT_FAMILIES)  # their files' names
SIZE = 1080
SHARE_ROWS = 10
SHARE_MOST = 14
SMALLEST_NAME = 0.6  # a long name is drawn down to this share of the line's size before it is cut short


@cache
def _font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    path = FONTS / ("DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf")
    if path.exists():
        return ImageFont.truetype(str(path), size)
    return ImageFont.load_default(size)  # no DejaVu (fonts-dejavu-core): Pillow's own font


@cache
def _letters(path: Path) -> frozenset[int]:
    """The characters a font file draws (its cmap; a collection's first font)."""
    from fontTools.ttLib import TTCollection, TTFont
    font = TTCollection(str(path), lazy=True).fonts[0] if path.suffix == ".ttc" else TTFont(str(path), lazy=True)
    return frozenset(font.getBestCmap() or {})


@cache
def font_files(bold: bool = False) -> tuple[Path, ...]:
    """The installed fonts a name may be drawn in, in the order they are tried."""
    weight = "Bold" if bold else "Regular"
    candidates = [FONTS / ("DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"),
                  *(NOTO / f"{name}-{weight}.ttf" for name in SCRIPT_FONTS),
                  NOTO_CJK / f"NotoSansCJK-{weight}.ttc", FALLBACK]
    return tuple(path for path in candidates if path.exists())


def font_file_for(text: str, bold: bool = False) -> Path | None:
    """The first font (font_files) that draws every letter of `text`; if none does, the one that draws
    the most; None when no font is installed."""
    wanted = {ord(ch) for ch in text if not ch.isspace()}
    files = font_files(bold)
    if not files:
        return None
    return next((path for path in files if wanted <= _letters(path)),
                max(files, key=lambda path: len(wanted & _letters(path))))


def _font_for(text: str, size: int, bold: bool = False):
    """The font `text` is drawn in at `size` px (font_file_for), Pillow's own when none is installed."""
    path = font_file_for(text, bold)
    return _font(size, bold) if path is None or path.name.startswith("DejaVuSans") else _sized(path, size)


@cache
def _sized(path: Path, size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(path), size)


def _fit(draw: ImageDraw.ImageDraw, text: str, font, width: int) -> str:
    if draw.textlength(text, font=font) <= width:
        return text
    while text and draw.textlength(text + "…", font=font) > width:
        text = text[:-1]
    return text + "…"


def _wrapped(draw: ImageDraw.ImageDraw, text: str, font, width: int, most: int) -> list[str] | None:
    """`text` in at most `most` lines no wider than `width`, broken between words (a word too long for
    a line broken between letters), or None when it needs more lines."""
    lines: list[str] = []
    for word in text.split():
        joined = f"{lines[-1]} {word}" if lines else word
        if lines and draw.textlength(joined, font=font) <= width:
            lines[-1] = joined
            continue
        while draw.textlength(word, font=font) > width:  # a word no line holds: broken where it fills one
            cut = next((i for i in range(len(word) - 1, 0, -1) if draw.textlength(word[:i], font=font) <= width), 1)
            lines.append(word[:cut])
            word = word[cut:]
        lines.append(word)
        if len(lines) > most:
            return None
    return lines if len(lines) <= most else None


def _name_fitted(draw: ImageDraw.ImageDraw, name: str, size: int, bold: bool, width: int, height: int):
    """(lines, font) of a name in its box on a line of the share image (`width` by `height` px): one
    line at the line's size when it fits, else in smaller type down to SMALLEST_NAME of it, else
    wrapped on two lines in the type two lines fit in (a 73-letter name), and only a name that two
    lines of the smallest type cannot hold is cut short with "…"."""
    smallest = max(int(size * SMALLEST_NAME), 8)
    for each in range(size, smallest - 1, -2):
        font = _font_for(name, each, bold)
        if draw.textlength(name, font=font) <= width:
            return [name], font
    two = max(min(size, int(height / 2.3)), 8)  # two lines and the space between them
    for each in range(two, max(int(two * SMALLEST_NAME), 8) - 1, -1):
        font = _font_for(name, each, bold)
        if lines := _wrapped(draw, name, font, width, 2):
            return lines, font
    font = _font_for(name, max(int(two * SMALLEST_NAME), 8), bold)
    first = _fit(draw, name, font, width)[:-1]
    return [first, _fit(draw, name[len(first):].lstrip(), font, width)], font


def share_png(pack: MonthPack) -> bytes:
    """A 1080×1080 PNG of the top of the month's standings: big type for a phone's feed, dark on
    gold for the leader, rank, name and points on every line (R-STD-1's shared ranks shown)."""
    image = Image.new("RGB", (SIZE, SIZE), "#101418")
    draw = ImageDraw.Draw(image)
    gold, white, grey = "#ffc24b", "#f4f6f8", "#9aa7b4"
    margin = 72
    title_font = _font_for(pack.league.name, 44, True)
    draw.text((margin, 64), _fit(draw, pack.league.name, title_font, SIZE - 2 * margin), font=title_font, fill=gold)
    draw.text((margin, 124), f"Standings · {pack.label}", font=_font(40), fill=white)
    # The top ten and anyone tied with 10th (R-STD-1's shared ranks), up to SHARE_MOST lines.
    rows = top_with_ties(pack.table, SHARE_ROWS)[:SHARE_MOST]
    top, bottom = 220, SIZE - 120
    line = min(76, (bottom - top) // max(len(rows), 1))
    size = min(46, int(line * 0.62))
    if not rows:
        draw.text((margin, top), "No results this month.", font=_font(44), fill=grey)
    for index, row in enumerate(rows):
        y = top + index * line
        if index == 0:
            draw.rounded_rectangle((margin - 20, y - 10, SIZE - margin + 20, y + line - 14), 16, fill=gold)
        ink = "#101418" if index == 0 else white
        num_font = _font(size, True)
        draw.text((margin, y), f"{row.rank}", font=num_font, fill=ink)
        points = f"{row.points:,}"
        points_width = draw.textlength(points, font=num_font)
        draw.text((SIZE - margin - points_width, y), points, font=num_font, fill=ink)
        name_left = margin + 110
        box = line - 14  # the leader's gold band, and the space between lines
        names, name_font = _name_fitted(draw, row.player, size, index == 0,
                                        int(SIZE - margin - points_width - 40 - name_left), box)
        # Smaller type and two lines sit on the line's middle, as the full-size name would.
        step = int(name_font.size * 1.15)
        name_top = y + max((size - step * len(names)) // 2, -10)
        for at, text in enumerate(names):
            draw.text((name_left, name_top + at * step), text, font=name_font, fill=ink)
    if rows:
        shown = "All" if len(rows) == len(pack.table) else f"Top {len(rows)} of"
        draw.text((margin, SIZE - 92), f"{shown} {len(pack.table)} players · points", font=_font(32), fill=grey)
    out = io.BytesIO()
    image.save(out, "PNG", optimize=False)
    return out.getvalue()
