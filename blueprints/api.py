"""The league's JSON API for its own website: leagues, standings, qualifiers, nights and results under
/api/, and the OpenAPI 3 document that describes every /api/ path (the clock's and the time source's,
served by blueprints/live.py, included). Public data only: names, points, positions; never a member's
contact, card or check-in code.

The document is kept here, beside the routes it describes: tests/web/test_api_schema.py checks that
every /api/ rule of the URL map is in it, and schemathesis checks that every answer conforms to it.
"""
from __future__ import annotations

import datetime as dt
from typing import Any

from flask import Blueprint, abort, current_app, jsonify, request, url_for
from sqlalchemy import func
from sqlalchemy.orm import joinedload
from werkzeug.exceptions import HTTPException

from blueprints import errors, event_or_404, league_or_404
from league.road import TicketRoad
from league.statuses import FIELD, EventStatus, LeagueKind, values
from live import push
from services import finals, leagues, results, road
from services import standings as league_standings
from services.models import Entry, Event, League, Member, Venue
from wiring.extensions import db

bp = Blueprint("api", __name__, url_prefix="/api")

MAX_ID = 2**63 - 1  # wiring.extensions.RowId: a larger id matches no route


def _json(payload: Any, status: int = 200):
    response = jsonify(payload)
    response.status_code = status
    response.headers["Cache-Control"] = "no-store"
    # The league's website may read these from its own pages' script: public data, no cookies asked.
    response.headers["Access-Control-Allow-Origin"] = "*"
    return response


@bp.app_errorhandler(400)
@bp.app_errorhandler(404)
@bp.app_errorhandler(405)
def _json_error(error: HTTPException):
    """Under /api/ every refusal is JSON, `{"error": reason}`, a route that does not match included
    (the website's scripts read the reason, never an HTML page); elsewhere the app's own page
    (blueprints/errors.py)."""
    if request.path.startswith("/api/"):
        response = _json({"error": error.description}, error.code)
        if error.code == 405:
            response.headers["Allow"] = ", ".join(error.valid_methods or ["GET"])
        return response
    return errors.answer(error)


# ---- Leagues, standings and qualifiers (the same shapes as `flask league … --json`) ----

@bp.route("/leagues")
def league_list():
    """The leagues this server keeps, by name, with their slug (the address of every other read)."""
    found = db.session.scalars(db.select(League).order_by(League.name)).all()
    return _json({"leagues": [_league(league) for league in found]})


@bp.route("/leagues/<slug>")
def league_detail(slug: str):
    """A league: its kind, time zone, venues and the months with settled nights (R-STD-1), newest first."""
    league = league_or_404(slug)
    venues = db.session.scalars(db.select(Venue.name).where(Venue.league_id == league.id).order_by(Venue.name)).all()
    return _json({**_league(league), "timezone": league.timezone, "venues": list(venues),
                  "months": leagues.league_months(league)})


@bp.route("/leagues/<slug>/standings")
def standings(slug: str):
    """R-STD-1/2: `?month=YYYY-MM` or `?year=YYYY` → {"standings": [{rank, player, points, events}]}."""
    league = league_or_404(slug)
    month, year = request.args.get("month"), request.args.get("year")
    if bool(month) == bool(year):
        abort(400, description="give exactly one of month=YYYY-MM or year=YYYY")
    try:
        table = (league_standings.month_standings(league, month) if month
                 else league_standings.year_standings(league, year))
    except ValueError as problem:
        abort(400, description=str(problem))
    return _json(league_standings.standings_json(table))


@bp.route("/leagues/<slug>/qualifiers")
def qualifiers(slug: str):
    """R-QUAL-1..5, R-FIN: `?month=YYYY-MM` → monthly_final, top10_shootout, highroller_final."""
    league = league_or_404(slug)
    try:
        return _json(finals.qualifiers(league, request.args.get("month", "")))
    except ValueError as problem:
        abort(400, description=str(problem))


@bp.route("/leagues/<slug>/members/<int:member_id>/road")
def member_road(slug: str, member_id: int):
    """R-STD-1/2, R-QUAL-1/2/4: a member's road to the finals this month: their place in the month and
    the season, the points from the Top-10 Shoot-out and the season's Top 50, their Monthly Final ticket
    or how to still earn one, the nights left this month at the venues they play, and their last results.
    The member is named by the id the public standings pages already carry (`#member-<id>`), never by
    their card's code; a merged record is gone (404)."""
    league = league_or_404(slug)
    member = db.session.get(Member, member_id)
    if member is None or member.league_id != league.id or member.merged_into_id is not None:
        abort(404, description=f"There is no member number {member_id} in {league.name}.")
    return _json(_road(road.road_of(league, member)))


# ---- Nights and their results ----

@bp.route("/leagues/<slug>/nights")
def nights(slug: str):
    """R-STD-1: `?month=YYYY-MM` → the month's nights (every status), each with its players and,
    once settled, the address of its results; without a month, the coming nights (running, or
    scheduled from today at the league's venues) as the public calendar shows them."""
    league = league_or_404(slug)
    month = request.args.get("month")
    if month is None:
        found = leagues.nights_from(league, league.today())
    else:
        first, following = _month(month)
        found = db.session.scalars(db.select(Event).options(joinedload(Event.venue)).where(
            Event.league_id == league.id, Event.date >= first, Event.date < following)
            .order_by(Event.date, Event.start_time, Event.id)).all()
    players = _players(found)
    return _json({"nights": [_night(event, players.get(event.id, 0)) for event in found]})


@bp.route("/events/<int:event_id>/results")
def night_results(event_id: int):
    """R-PTS-1..8, R-QUAL-1/2, R-PAY-1: a settled night's finishing order with points, prizes and the
    Monthly Final tickets it gave (404 until it is settled)."""
    event = event_or_404(event_id)
    if event.status != EventStatus.SETTLED:
        abort(404, description="this night's results are not settled yet")
    finishers = results.finishers(event)
    ticketed = results.ticketed(event)
    return _json({"night": _night(event, len(finishers)), "results": [results.result_row(e, ticketed)
                                                                      for e in finishers]})


@bp.route("/push/key")
def push_key():
    """R-MEM-1: the VAPID application server key (RFC 8292) a player's phone subscribes with, base64url."""
    return _json({"public_key": push.public_key(current_app.extensions["push_vapid"])})


@bp.route("/openapi.json")
def openapi():
    """The OpenAPI 3 document of every /api/ path."""
    return _json(document())


def _month(text: str) -> tuple[dt.date, dt.date]:
    try:
        return leagues.parse_month(text)
    except ValueError as problem:
        abort(400, description=str(problem))


def _league(league: League) -> dict[str, Any]:
    return {"name": league.name, "slug": league.slug, "kind": league.kind}


def _players(events: list[Event]) -> dict[int, int]:
    """Each night's players: who took a seat, still in or not (R-PTS-5's field), one read for all."""
    if not events:
        return {}
    return dict(db.session.execute(db.select(Entry.event_id, func.count()).where(
        Entry.event_id.in_([e.id for e in events]), Entry.status.in_(FIELD))
        .group_by(Entry.event_id)).all())


def _night(event: Event, players: int) -> dict[str, Any]:
    settled = event.status == EventStatus.SETTLED
    return {"id": event.id, "date": event.date.isoformat(),
            "start_time": event.start_time.strftime("%H:%M") if event.start_time else None,
            "venue": event.venue.name, "event_type": event.event_type, "status": event.status,
            "players": players,
            "results": url_for("api.night_results", event_id=event.id) if settled else None,
            "clock": None if settled else url_for("live.clock_json", event_id=event.id)}


def _when(event: Event) -> dict[str, Any]:
    return {"date": event.date.isoformat(),
            "start_time": event.start_time.strftime("%H:%M") if event.start_time else None, "venue": event.venue.name}


def _place(place) -> dict[str, Any] | None:
    return None if place is None else {"rank": place.rank, "tied": place.tied, "points": place.points,
                                       "events": place.events, "players": place.players}


def _cut(cut) -> dict[str, Any]:
    return {"qualified": cut.inside, "cut": cut.cut, "points_needed": cut.needed, "open_places": cut.open_places}


def _road(found: road.Road) -> dict[str, Any]:
    """R-STD-1/2, R-QUAL-1/2/4: the road as JSON: only what the public standings, qualifiers, nights and
    results already show (names, points, places, dates, venues)."""
    ticket, chance = found.ticket, found.chance
    return {
        "player": found.member.name, "month": found.month, "season": found.year,
        "month_standing": _place(found.month_place), "season_standing": _place(found.season_place),
        "top10_shootout": _cut(found.shootout), "season_top50": _cut(found.top50),
        "monthly_final_ticket": None if ticket is None else {
            "night": {"id": ticket.event_id, **_when(ticket.event)}, "position": ticket.position},
        "monthly_finals": [{"id": final.id, **_when(final)} for final in found.finals],
        "ticket_chance": {"state": str(chance.road), "nightly_games_left": chance.nights_left,
                          "places": chance.places, "pass_down": chance.pass_down},
        "nights_left": {"at_their_venues": found.at_their_venues,
                        "nights": [{"id": night.id, **_when(night), "event_type": night.event_type,
                                    "status": night.status} for night in found.nights]},
        "form": [{"night": entry.event_id, **_when(entry.event), "event_type": entry.event.event_type,
                  "status": entry.status, "position": entry.position, "points": entry.points,
                  "results": url_for("api.night_results", event_id=entry.event_id)} for entry in found.form],
    }


# ---- The OpenAPI document ----

def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _answer(description: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _refusal(description: str) -> dict[str, Any]:
    return _answer(description, _ref("Error"))


def _object(properties: dict[str, Any], *, required: list[str] | None = None,
            closed: bool = True) -> dict[str, Any]:
    return {"type": "object", "properties": properties,
            "required": list(properties) if required is None else required,
            "additionalProperties": not closed}


_INT = {"type": "integer"}
_COUNT = {"type": "integer", "minimum": 0}
_TEXT = {"type": "string"}
_DATE = {"type": "string", "format": "date"}
_MONTH_TEXT = {"type": "string", "pattern": r"^[0-9]{4}-[0-9]{2}$", "example": "2026-11"}
_NULLABLE_TEXT = {"type": ["string", "null"]}
_START_TIME = {"type": ["string", "null"], "pattern": "^[0-9]{2}:[0-9]{2}$"}  # HH:MM, or null: no start time
_SLUG = {"name": "slug", "in": "path", "required": True, "description": "The league's slug (or its name).",
         "schema": {"type": "string", "minLength": 1, "pattern": "^[A-Za-z0-9 -]+$"}}
_EVENT_ID = {"name": "event_id", "in": "path", "required": True,
             "schema": {"type": "integer", "minimum": 1, "maximum": MAX_ID}}
_MEMBER_ID = {"name": "member_id", "in": "path", "required": True,
              "description": "The member's id, as the standings pages carry it (`#member-<id>`).",
              "schema": {"type": "integer", "minimum": 1, "maximum": MAX_ID}}
_MONTH = {"name": "month", "in": "query", "schema": _MONTH_TEXT, "description": "A month, YYYY-MM."}


def _get(summary: str, parameters: list[dict[str, Any]], ok: dict[str, Any], *refusals: int) -> dict[str, Any]:
    reasons = {400: "Bad parameters (the reason is given).", 404: "No such league, event or member."}
    return {"get": {"summary": summary, "parameters": parameters,
                    "responses": {"200": ok, **{str(code): _refusal(reasons[code]) for code in refusals}}}}


def _or_null(schema: dict[str, Any]) -> dict[str, Any]:
    return {**schema, "type": [schema["type"], "null"]}


def _road_schema() -> dict[str, Any]:
    when = {"date": _DATE, "start_time": _START_TIME, "venue": _TEXT}
    place = _object({"rank": {"type": "integer", "minimum": 1}, "tied": {"type": "boolean"}, "points": _INT,
                     "events": _COUNT, "players": _COUNT})
    cut = _object({"qualified": {"type": "boolean"}, "cut": _COUNT, "points_needed": _COUNT, "open_places": _COUNT})
    night = _object({"id": _INT, **when, "event_type": _TEXT,
                     "status": {"type": "string", "enum": list(values(EventStatus))}})
    return _object({
        "player": _TEXT, "month": _MONTH_TEXT, "season": {"type": "string", "pattern": "^[0-9]{4}$"},
        "month_standing": _or_null(place), "season_standing": _or_null(place),
        "top10_shootout": cut, "season_top50": cut,
        "monthly_final_ticket": _or_null(_object({"night": _object({"id": _INT, **when}),
                                                  "position": {"type": "integer", "minimum": 1}})),
        "monthly_finals": {"type": "array", "items": _object({"id": _INT, **when})},
        "ticket_chance": _object({"state": {"type": "string", "enum": list(values(TicketRoad))},
                                  "nightly_games_left": _COUNT, "places": _COUNT, "pass_down": {"type": "boolean"}}),
        "nights_left": _object({"at_their_venues": {"type": "boolean"},
                                "nights": {"type": "array", "items": night}}),
        "form": {"type": "array", "items": _object(
            {"night": _INT, **when, "event_type": _TEXT, "status": _TEXT, "position": {"type": ["integer", "null"]},
             "points": _INT, "results": _TEXT})}})


def document() -> dict[str, Any]:
    """The OpenAPI 3.1 document of the /api/ paths: what the league's website may rely on."""
    schemas = {
        "Error": _object({"error": _TEXT}),
        "League": _object({"name": _TEXT, "slug": _TEXT, "kind": {"type": "string", "enum": list(values(LeagueKind))}}),
        "StandingRow": _object({"rank": {"type": "integer", "minimum": 1}, "player": _TEXT, "points": _INT,
                                "events": _COUNT}),
        "Night": _object({
            "id": _INT, "date": _DATE, "start_time": _START_TIME,
            "venue": _TEXT, "event_type": _TEXT, "status": {"type": "string", "enum": list(values(EventStatus))},
            "players": _COUNT, "results": _NULLABLE_TEXT, "clock": _NULLABLE_TEXT}),
        "Road": _road_schema(),
        "Result": _object({"position": {"type": ["integer", "null"]}, "player": _TEXT, "status": _TEXT,
                           "points": _INT, "prize": _COUNT, "monthly_final_ticket": {"type": "boolean"}}),
    }
    paths = {
        "/api/time": {"get": {"summary": "The server's clock in epoch ms (R-CLOCK-3).", "responses": {
            "200": _answer("The server's time.", _object({"server_time_ms": _INT}))}}},
        "/api/events/{event_id}/clock": _get(
            "The live clock of a night (R-CLOCK-1..4, R-HFH-1/2); once it is settled, its result.", [_EVENT_ID],
            _answer("The clock payload every phone reads. A settled night's clock has stopped (`running` and "
                    "`registration_open` false, `settled` true) and `result` holds what every screen shows in "
                    "its place: the top 10 and everyone paid or given a Monthly Final ticket, in finishing "
                    "order (the whole field is at `/api/events/{event_id}/results`). `prizes` are the prizes "
                    "by place as paid: after an agreed deal (R-PAY-2), its shares in the places it fixed. "
                    "`hand_for_hand` says whether the night plays hand-for-hand at the money bubble (R-HFH-1) "
                    "and `hand` the number of the hand every table is dealing (null before the host's first "
                    "Next hand, and whenever hand-for-hand is off); `hand_for_hand_suggested`, whether the "
                    "host's screen suggests switching it on.",
                    _object(
                {"event_id": _INT, "version": _INT, "server_time_ms": _INT, "level": {"type": ["integer", "null"]},
                 "running": {"type": "boolean"}, "started": {"type": "boolean"}, "remaining_ms": _INT,
                 "registration_open": {"type": "boolean"}, "players_left": _COUNT,
                 "prizes": {"type": "array", "items": _COUNT}, "settled": {"type": "boolean"},
                 "result": {"type": ["array", "null"], "items": _ref("Result")},
                 "state": {"type": "object"}, "structure": {"type": "array"},
                 "hand_for_hand": {"type": "boolean"}, "hand": {"type": ["integer", "null"], "minimum": 1},
                 "hand_for_hand_suggested": {"type": "boolean"}},
                required=["event_id", "version", "server_time_ms", "running", "started", "registration_open",
                          "prizes", "settled", "result", "state", "structure", "hand_for_hand", "hand"],
                closed=False)), 404),
        "/api/events/{event_id}/seats": _get(
            "Tonight's seats by name (R-SEAT-1..4), as the room sees them at the tables.", [_EVENT_ID],
            _answer("The players in the game with a seat, table by table; `final_table` once it is drawn "
                    "(R-SEAT-4). The big screen reads it when the clock's `seats` digest moves.", _object({
                        "event_id": _INT, "final_table": {"type": "boolean"},
                        "seats": {"type": "array", "items": _object(
                            {"table": {"type": "integer", "minimum": 1}, "seat": {"type": "integer", "minimum": 1},
                             "name": _TEXT})}})), 404),
        "/api/leagues": {"get": {"summary": "Every league on this server.", "responses": {
            "200": _answer("The leagues by name.", _object({"leagues": {"type": "array", "items": _ref("League")}}))}}},
        "/api/leagues/{slug}": _get(
            "A league, its venues and its months with settled nights.", [_SLUG],
            _answer("The league.", _object(
                {**schemas["League"]["properties"], "timezone": _TEXT, "venues": {"type": "array", "items": _TEXT},
                 "months": {"type": "array", "items": _MONTH_TEXT}})), 404),
        "/api/leagues/{slug}/standings": _get(
            "The month's (R-STD-1) or the season's (R-STD-2) whole table: give exactly one of month, year.",
            [_SLUG, _MONTH, {"name": "year", "in": "query", "description": "A season, YYYY.",
                             "schema": {"type": "string", "pattern": "^[0-9]{4}$"}}],
            _answer("The table, ranks shared on equal points.",
                    _object({"standings": {"type": "array", "items": _ref("StandingRow")}})), 400, 404),
        "/api/leagues/{slug}/qualifiers": _get(
            "The month's Monthly Final tickets, Top-10 Shoot-out and High-roller Final (R-QUAL, R-FIN).",
            [_SLUG, {**_MONTH, "required": True}],
            _answer("Who qualified.", _object({
                "monthly_final": {"type": "array", "items": _object(
                    {"player": _TEXT, "date": _DATE, "start_time": _START_TIME, "venue": _TEXT,
                     "position": {"type": "integer", "minimum": 1}})},
                "top10_shootout": {"type": "array", "items": _object({"player": _TEXT, "points": _INT})},
                "highroller_final": {"type": "array", "items": _object(
                    {"player": _TEXT, "events": _COUNT, "starting_stack": _COUNT})}})), 400, 404),
        "/api/leagues/{slug}/members/{member_id}/road": _get(
            "A member's road to the finals this month (R-STD-1/2, R-QUAL-1/2/4).", [_SLUG, _MEMBER_ID],
            _answer("Their place in the month's and the season's table (null: no point-awarding night yet; "
                    "`tied`: the rank is shared on equal points), the points they need to reach the "
                    "Top-10 Shoot-out and the season's Top 50 (`cut`: the last place's total, a player "
                    "tied with it is in; while `open_places` > 0 the least that counts), their Monthly "
                    "Final ticket (null: none yet) and the Monthly Final booked for the month, how a "
                    "ticket can still be earned (`state`: held, nights_left or no_nights_left), this "
                    "month's nights still to play at the venues they have played (every venue's while "
                    "they have played none), and their last point-awarding results, oldest first.",
                    _ref("Road")), 404),
        "/api/leagues/{slug}/nights": _get(
            "The month's nights, or without a month the coming nights.", [_SLUG, _MONTH],
            _answer("Nights in date order.", _object({"nights": {"type": "array", "items": _ref("Night")}})),
            400, 404),
        "/api/events/{event_id}/results": _get(
            "A settled night's finishing order, points, prizes and tickets (R-PTS, R-QUAL-1/2, R-PAY-1).",
            [_EVENT_ID],
            _answer("The results.", _object({"night": _ref("Night"),
                                             "results": {"type": "array", "items": _ref("Result")}})), 404),
        "/api/push/key": {"get": {"summary": "The server's Web Push key (VAPID, RFC 8292) for a phone's "
                                              "subscription (then POST /me/push).", "responses": {
            "200": _answer("The application server key: an uncompressed P-256 point, base64url.",
                           _object({"public_key": {"type": "string", "pattern": "^[A-Za-z0-9_-]{87}$"}}))}}},
        "/api/openapi.json": {"get": {"summary": "This document.", "responses": {
            "200": _answer("The OpenAPI document.", {"type": "object"})}}},
    }
    return {"openapi": "3.1.0",
            "info": {"title": "ShuffleUp league API", "version": "1",
                     "description": "Public reads for a league's own website: standings, qualifiers, nights "
                                    "and results, in the shapes of `flask league … --json`."},
            "paths": paths, "components": {"schemas": schemas}}
