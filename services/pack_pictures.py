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
FONT = "'DejaVu Sans', 'Helvetica Neue', Arial, sans-serif"
STYLE = Style(
    background="#ffffff", plot_background="#ffffff", foreground="#1b1f24", foreground_strong="#1b1f24",
    foreground_subtle="#5d6d7e", opacity="1", opacity_hover="1", colors=COLOURS, font_family=FONT,
    title_font_size=22, label_font_size=15, major_label_font_size=15, legend_font_size=16, value_font_size=15,
    value_label_font_size=15, tooltip_font_size=15, stroke_width=3)
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


def _line_chart(title: str) -> pygal.Line:
    return pygal.Line(
        js=[], disable_xml_declaration=True, width=WIDTH, height=HEIGHT, style=STYLE, title=title,
        legend_at_bottom=True, legend_at_bottom_columns=3, truncate_legend=-1, truncate_label=-1, show_dots=True,
        dots_size=4, print_labels=True, x_label_rotation=0, show_minor_x_labels=False, margin=12, margin_right=100,
        margin_bottom=44, legend_box_size=14,
        tooltip_fancy_mode=False, include_x_axis=True, no_data_text="No nights this month")


def _end_labels(finals: dict[str, int]) -> dict[str, str]:
    """The name printed at the end of each line: lines that end level share one label ("Bea, Gus"),
    printed once, so no two names sit on top of each other."""
    level: dict[int, list[str]] = {}
    for name, value in finals.items():
        level.setdefault(value, []).append(name)
    return {names[0]: _short(", ".join(names)) for names in level.values()}


def _short(label: str, most: int = 11) -> str:
    # What fits in the chart's right margin; the legend and the description name everyone.
    return label if len(label) <= most else label[:most - 1].rstrip(", ") + "…"


def _add(chart: pygal.Line, index: int, name: str, values: list[int], label: str | None) -> None:
    # The last point carries the line's name, printed beside it (print_labels).
    points = [{"value": v} for v in values]
    if points and label:
        points[-1]["label"] = label
    dash = DASHES[index % len(DASHES)]
    chart.add(name, points, stroke_style={"width": 3, "dasharray": dash} if dash else {"width": 3})


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
    chart = _line_chart(title)
    chart.x_labels = [f"{a.day}–{b.day} {a:%b}" for a, b in spans]
    chart.x_labels_major_every = 1
    summary = []
    venues = sorted(pack.attendance.items(), key=lambda item: item[0].casefold())
    weekly = {venue: [sum(p for day, p in nights if a <= day <= b) for a, b in spans] for venue, nights in venues}
    labels = _end_labels({venue: values[-1] for venue, values in weekly.items()})
    for index, (venue, nights) in enumerate(venues):
        _add(chart, index, venue, weekly[venue], labels.get(venue))
        summary.append(f"{venue}: {sum(weekly[venue])} players over {len(nights)} nights")
    description = ("Players each week at each venue. " + "; ".join(summary) + ".") if summary else \
        "No nights this month."
    return _accessible(chart.render(is_unicode=True), "attendance", title, description)


def race_svg(pack: MonthPack) -> str:
    """The leaders' points through the month, night by night (R-STD-1)."""
    title = f"Points race, {pack.label}"
    chart = _line_chart(title)
    dates = next(iter(pack.race.values()), [])
    chart.x_labels = [day.strftime("%-d %b") for day, _ in dates]
    chart.x_labels_major_every = max(1, len(dates) // 5)
    summary = []
    labels = _end_labels({player: series[-1][1] if series else 0 for player, series in pack.race.items()})
    for index, (player, series) in enumerate(pack.race.items()):
        _add(chart, index, player, [points for _, points in series], labels.get(player))
        summary.append(f"{player} {series[-1][1] if series else 0}")
    description = ("Points so far after each night for the month's leaders. Final: " + ", ".join(summary) + ".") \
        if summary else "Nobody has scored this month."
    return _accessible(chart.render(is_unicode=True), "race", title, description)


# --- the share image -------------------------------------------------------------------------------

FONTS = Path("/usr/share/fonts/truetype/dejavu")
SIZE = 1080
SHARE_ROWS = 10
SHARE_MOST = 14


@cache
def _font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    path = FONTS / ("DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf")
    if path.exists():
        return ImageFont.truetype(str(path), size)
    return ImageFont.load_default(size)  # no DejaVu (fonts-dejavu-core): Pillow's own font


def _fit(draw: ImageDraw.ImageDraw, text: str, font, width: int) -> str:
    if draw.textlength(text, font=font) <= width:
        return text
    while text and draw.textlength(text + "…", font=font) > width:
        text = text[:-1]
    return text + "…"


def share_png(pack: MonthPack) -> bytes:
    """A 1080×1080 PNG of the top of the month's standings: big type for a phone's feed, dark on
    gold for the leader, rank, name and points on every line (R-STD-1's shared ranks shown)."""
    image = Image.new("RGB", (SIZE, SIZE), "#101418")
    draw = ImageDraw.Draw(image)
    gold, white, grey = "#ffc24b", "#f4f6f8", "#9aa7b4"
    margin = 72
    draw.text((margin, 64), _fit(draw, pack.league.name, _font(44, True), SIZE - 2 * margin), font=_font(44, True),
              fill=gold)
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
        name_font, num_font = _font(size, index == 0), _font(size, True)
        draw.text((margin, y), f"{row.rank}", font=num_font, fill=ink)
        points = f"{row.points:,}"
        points_width = draw.textlength(points, font=num_font)
        draw.text((SIZE - margin - points_width, y), points, font=num_font, fill=ink)
        name_left = margin + 110
        draw.text((name_left, y), _fit(draw, row.player, name_font, int(SIZE - margin - points_width - 40 - name_left)),
                  font=name_font, fill=ink)
    if rows:
        shown = "All" if len(rows) == len(pack.table) else f"Top {len(rows)} of"
        draw.text((margin, SIZE - 92), f"{shown} {len(pack.table)} players · points", font=_font(32), fill=grey)
    out = io.BytesIO()
    image.save(out, "PNG", optimize=False)
    return out.getvalue()
