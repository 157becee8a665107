"""The month-end pack to publish: the print page, its PDF, each table as CSV, the pictures (SVG) and
the square share image (R-STD, R-QUAL, R-FIN, R-PAY-3)."""

import base64
from pathlib import Path

from flask import Response, abort, current_app, render_template

from blueprints.organiser.base import bp, my_league
from blueprints.organiser.month import chart_urls, month_pack_or_404
from services import pack, pack_pictures
from wiring.offload import apart

# The pictures are served with a policy of their own: pygal's <style> inside the SVG, and nothing else
# (no script at all; the pictures carry none).
PICTURE_POLICY = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'"


def _download(body, mimetype: str, filename: str) -> Response:
    response = Response(body, mimetype=mimetype)
    response.headers["Content-Disposition"] = f'attachment; filename="{filename}"'
    response.headers["Cache-Control"] = "private, no-store"
    return response


def _filename(league, what: str, ext: str) -> str:
    return f"{league.slug}-{what}.{ext}"


def _print_css() -> str:
    return str(Path(current_app.static_folder) / "organiser" / "print.css")


def _svg_data(svg: str) -> str:
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode("utf-8")).decode("ascii")


@bp.route("/<slug>/months/<month>/print")
def pack_print(slug: str, month: str):
    """The month-end pack as a print-ready A4 page (print.css)."""
    league, found = month_pack_or_404(slug, month)
    return render_template("organiser/pack_print.html", pack=pack.for_print(found), charts=chart_urls(league, month),
                           pdf=False)


def _pdf_of(html: str, stylesheet: str) -> bytes:
    from weasyprint import CSS, HTML
    from weasyprint.urls import URLFetcher

    # The PDF fetches nothing but its own data: pictures, so no name in the page can make the server
    # ask for an address.
    return HTML(string=html, base_url=None, url_fetcher=URLFetcher(allowed_protocols={"data"})).write_pdf(
        stylesheets=[CSS(filename=stylesheet)])


@bp.route("/<slug>/months/<month>/pack.pdf")
def pack_pdf(slug: str, month: str):
    """The print page as a PDF download (WeasyPrint), the pictures embedded; drawn apart from the
    worker's loop (wiring.offload), so the phones on the same worker keep their clocks meanwhile."""
    league, found = month_pack_or_404(slug, month)
    charts = {"attendance": _svg_data(pack_pictures.attendance_svg(found)),
              "race": _svg_data(pack_pictures.race_svg(found))}
    html = render_template("organiser/pack_print.html", pack=pack.for_print(found), charts=charts, pdf=True)
    # Loads pango, only when a PDF is asked for, and on the loop: finding the library runs ldconfig,
    # and gevent's subprocess cannot wait for a child from another thread.
    import weasyprint  # noqa: F401
    pdf = apart(_pdf_of, html, _print_css())
    return _download(pdf, "application/pdf", _filename(league, f"{month}-pack", "pdf"))


@bp.route("/<slug>/months/<month>/<table>.csv")
def pack_csv(slug: str, month: str, table: str):
    """One of the pack's tables as CSV, every cell escaped against formulas."""
    league, found = month_pack_or_404(slug, month)
    tables = pack.month_tables(found)
    if table not in tables:
        abort(404)
    header, rows = tables[table]
    return _download(pack.csv_text(header, rows), "text/csv", _filename(league, f"{month}-{table}", "csv"))


@bp.route("/<slug>/months/<month>/charts/<name>.svg")
def pack_chart(slug: str, month: str, name: str):
    """A picture of the month: attendance per venue, or the leaders' points race (SVG)."""
    _, found = month_pack_or_404(slug, month)
    draw = {"attendance": pack_pictures.attendance_svg, "race": pack_pictures.race_svg}.get(name)
    if draw is None:
        abort(404)
    response = Response(draw(found), mimetype="image/svg+xml")
    response.headers["Content-Security-Policy"] = PICTURE_POLICY
    response.headers["Cache-Control"] = "private, no-cache"
    return response


@bp.route("/<slug>/months/<month>/share.png")
def pack_share(slug: str, month: str):
    """The square share image of the top of the month's standings (1080×1080 PNG)."""
    league, found = month_pack_or_404(slug, month)
    response = Response(pack_pictures.share_png(found), mimetype="image/png")
    response.headers["Content-Disposition"] = f'inline; filename="{_filename(league, month + "-standings", "png")}"'
    response.headers["Cache-Control"] = "private, no-cache"
    return response


@bp.route("/<slug>/seasons/<int:year>.csv")
def season_csv(slug: str, year: int):
    """R-STD-2: the season's Top 50 with ties and their months as CSV."""
    league = my_league(slug)
    try:
        found = pack.season_pack(league, year)
    except ValueError:
        abort(404)
    header, rows = pack.season_table(found)
    return _download(pack.csv_text(header, rows), "text/csv", _filename(league, f"{year}-season", "csv"))
