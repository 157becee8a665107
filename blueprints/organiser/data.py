"""The organiser's import and export: results from a CSV file (upload, preview, confirm), the whole
league as one file to download, and a league file imported into a new, empty league."""
import datetime as dt
import hmac

from flask import Response, current_app, request, stream_with_context, url_for
from flask_login import logout_user
from itsdangerous import BadSignature, SignatureExpired, URLSafeTimedSerializer

from blueprints import page_or_fragment
from blueprints.organiser.base import bp, my_league
from league.results_file import ResultsFileError, parse_results
from services import Refused, export, results
from services.models import League
from wiring.body_limit import takes_file
from wiring.extensions import db

MAX_CSV_BYTES = 2 * 1024 * 1024  # the page's limit; bigger files go through `flask league import-results`
MAX_TOKEN_CHARS = 400_000  # the signed file rides in a form field (Werkzeug reads at most 500 KB of one)
PREVIEW_MAX_AGE_S = 3600  # a preview left open longer is previewed again
NAMES_SHOWN = 30


def _signer() -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(current_app.config["SECRET_KEY"], salt="organiser.results-import")


def _page(league: League, status: int = 200, **context):
    context.setdefault("preview", None)
    context.setdefault("problems", [])
    context.setdefault("done", None)
    context.setdefault("league_problem", None)
    return page_or_fragment("organiser/data.html", "organiser/_data.html", status=status, league=league,
                            counts=export.table_counts(league), empty=export.is_empty(league),
                            names_shown=NAMES_SHOWN, **context)


@bp.route("/<slug>/data")
def data(slug: str):
    """Import and export: the CSV results import, the league file to download or to import."""
    return _page(my_league(slug))


def _uploaded_text(field: str) -> str:
    upload = request.files.get(field)
    if upload is None or not upload.filename:
        raise ResultsFileError(["line 1: choose a CSV file to upload"])
    raw = upload.stream.read(MAX_CSV_BYTES + 1)
    if len(raw) > MAX_CSV_BYTES:
        raise ResultsFileError([f"line 1: the file is over {MAX_CSV_BYTES // (1024 * 1024)} MB: "
                                "import it with `flask league import-results`"])
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ResultsFileError(["line 1: the file is not UTF-8 text (save it from the spreadsheet as CSV UTF-8)"]) \
            from None


@bp.route("/<slug>/results/preview", methods=["POST"])
@takes_file("RESULTS_FILE_BODY_MAX")
def results_preview(slug: str):
    """R-PTS, R-QUAL: check an uploaded results file whole, as `flask league import-results` does
    (line-numbered; any bad row rejects the file), and show what importing it would change: its
    nights, the members and venues it creates, the results. Nothing is written; the confirm
    carries the file back signed, with a digest of this preview."""
    league = my_league(slug)
    replace = request.form.get("replace") == "y"
    try:
        text = _uploaded_text("file")
        preview = results.preview_import(league, parse_results(text), replace=replace)
    except ResultsFileError as rejected:
        return _page(league, 422, problems=rejected.errors)
    if preview.problems:
        return _page(league, 422, problems=list(preview.problems))
    token = _signer().dumps({"league": league.id, "csv": text, "replace": replace,
                             "preview": preview.fingerprint()})
    if len(token) > MAX_TOKEN_CHARS:
        return _page(league, 422, problems=["line 1: the file is too large to confirm from this page: "
                                            "import it with `flask league import-results`"])
    return _page(league, preview=preview, token=token, replace=replace)


@bp.route("/<slug>/results/import", methods=["POST"])
@takes_file("RESULTS_FILE_BODY_MAX")
def results_import(slug: str):
    """R-PTS, R-QUAL: import the previewed file, all or nothing. Refused (nothing written) when the
    confirm was not signed here for this league, is over an hour old, or when the file would now
    change something other than what the preview showed (the league moved on since)."""
    league = my_league(slug)
    try:
        signed = _signer().loads(request.form.get("token", ""), max_age=PREVIEW_MAX_AGE_S)
    except SignatureExpired:
        return _page(league, 409, problems=["This preview is over an hour old: upload the file again."])
    except BadSignature:
        return _page(league, 400, problems=["This import was not previewed here: upload the file again."])
    if not isinstance(signed, dict) or signed.get("league") != league.id:
        return _page(league, 400, problems=["This import was previewed for another league: upload the file again."])
    try:  # checked at the preview, the same text; the rules may still say no today (a date bound)
        events = parse_results(signed["csv"])
    except ResultsFileError as rejected:
        return _page(league, 409, problems=rejected.errors)
    preview = results.preview_import(league, events, replace=signed["replace"])
    if not hmac.compare_digest(preview.fingerprint(), signed["preview"]) or preview.problems:
        return _page(league, 409, problems=[
            "The league changed since this preview: check the new preview below before importing."]
            + list(preview.problems),
            preview=None if preview.problems else preview,
            token=_signer().dumps({**signed, "preview": preview.fingerprint()}), replace=signed["replace"])
    try:
        summary = results.import_results(league, events, replace=signed["replace"])
        db.session.commit()
    except ResultsFileError as rejected:
        db.session.rollback()
        return _page(league, 409, problems=rejected.errors)
    return _page(league, done=summary)


@bp.route("/<slug>/export.json")
def export_file(slug: str):
    """The whole league as one file (services/export.py), streamed as it is read."""
    league = my_league(slug)
    name = f"{league.slug}-{dt.date.today().isoformat()}.json"
    return Response(stream_with_context(export.iter_file(export.export_lines(league))),
                    mimetype="application/json",
                    headers={"Content-Disposition": f'attachment; filename="{name}"', "Cache-Control": "no-store"})


@bp.route("/<slug>/import", methods=["POST"])
@takes_file("LEAGUE_FILE_BODY_MAX")
def league_import(slug: str):
    """Fill a new, empty league from a league file (export → import gives back the same league, ids,
    logins and all); refused with the reason, nothing written, for a league that has anything of its
    own, a database holding other leagues' rows, or a corrupted, truncated, foreign or future file."""
    league = my_league(slug)
    upload = request.files.get("file")
    if upload is None or not upload.filename:
        return _page(league, 422, league_problem="Choose a league file (.json) to upload.")
    try:
        summary = export.import_league(upload.stream, replacing=league)
        db.session.commit()
    except Refused as refused:
        db.session.rollback()
        return _page(league, 422, league_problem=f"{refused} Nothing was imported.")
    logout_user()  # this league's logins are now the file's
    return page_or_fragment("organiser/imported.html", "organiser/_imported.html", summary=summary,
                            login=url_for("auth.login"))
