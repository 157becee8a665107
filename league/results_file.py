"""The results file organisers import (the CLI's import-results, the organiser's Import page): parsed
and checked whole, in plain Python.

Columns: date (YYYY-MM-DD), start_time (HH:MM, optional), venue, event_type, position (ties share a
number, the next skips: 1,2,2,4), player, status (played by default, no_show with an empty position,
dq), buy_in (whole dollars, optional: the event's buy-in, the same on each of its lines) and prize
(whole dollars, optional: what the player was paid). One event = one (date, start_time, venue). Any bad
row rejects the whole file.
"""
from __future__ import annotations

import csv
import datetime as dt
import io
from dataclasses import dataclass

from league.events import EVENT_TYPES, date_problem
from league.members import clean_name, name_key, name_problem
from league.payouts import MONEY_MAX
from league.points import check_finishing_order
from league.statuses import RESULT_STATUSES, EntryStatus
from league.text import text_problem

MAX_VENUE_LENGTH = 120  # Venue.name is String(120)

REQUIRED_COLUMNS = ("date", "venue", "event_type", "position", "player")
OPTIONAL_COLUMNS = ("start_time", "status", "buy_in", "prize")
MAX_ERRORS = 20


@dataclass(frozen=True)
class ResultRow:
    """One player's result on one line of the file."""
    line: int
    player: str
    position: int | None
    status: str
    prize: int = 0


@dataclass(frozen=True)
class EventResults:
    """The rows of one event, keyed as the file keys it: (date, start time, venue)."""
    date: dt.date
    start_time: dt.time | None
    venue: str
    event_type: str
    rows: tuple[ResultRow, ...]
    buy_in: int = 0  # R-PAY-3: each player's buy-in, whole dollars (0: free, or not in the file)

    @property
    def first_line(self) -> int:
        return min(row.line for row in self.rows)

    def describe(self) -> str:
        """The event as an organiser would name it in a message."""
        when = self.date.isoformat() + (f" {self.start_time:%H:%M}" if self.start_time else "")
        return f"{when} at {self.venue}"


class ResultsFileError(ValueError):
    """The file was rejected; `errors` lists each problem with its line number."""

    def __init__(self, errors: list[str]):
        self.errors = errors
        super().__init__("\n".join(errors))


def _parse_date(text: str) -> dt.date:
    try:
        if len(text) != 10:
            raise ValueError
        date = dt.date.fromisoformat(text)
    except ValueError:
        raise ValueError(f"bad date {text!r}: use YYYY-MM-DD") from None
    if problem := date_problem(date):
        raise ValueError(problem)
    return date


def _parse_time(text: str) -> dt.time | None:
    if not text:
        return None
    try:
        hours, minutes = text.split(":")
        if len(minutes) != 2 or not hours.isdigit() or not minutes.isdigit():
            raise ValueError
        return dt.time(int(hours), int(minutes))
    except ValueError:
        raise ValueError(f"bad start_time {text!r}: use HH:MM (24-hour)") from None


def _parse_dollars(record: dict[str, str], column: str) -> int | None:
    """R-PAY-1: a money cell as whole dollars (None: blank or no such column); ValueError when it is not."""
    text = record.get(column, "").replace(",", "").removeprefix("$")
    if not text:
        return None
    if not (text.isascii() and text.isdigit()) or len(text) > len(str(MONEY_MAX)) or int(text) > MONEY_MAX:
        raise ValueError(f"bad {column} {record[column]!r}: whole dollars from 0 to {MONEY_MAX:,}")
    return int(text)


def _parse_row(record: dict[str, str]) -> tuple[tuple, str, ResultRow, str, int | None]:
    """One line → (event key, event type, row, venue, buy-in); ValueError names what is wrong."""
    date = _parse_date(record["date"])
    start_time = _parse_time(record.get("start_time", ""))
    if problem := text_problem(record["venue"], MAX_VENUE_LENGTH, "the venue", required=True):
        raise ValueError(problem)
    venue = clean_name(record["venue"])
    event_type = record["event_type"].casefold()
    if event_type not in EVENT_TYPES:
        raise ValueError(f"unknown event type {record['event_type']!r}: use one of {', '.join(EVENT_TYPES)}")
    problem = name_problem(record["player"])
    if problem:
        raise ValueError(problem)
    status = record.get("status", "").casefold() or EntryStatus.PLAYED
    if status not in RESULT_STATUSES:
        raise ValueError(f"unknown status {record['status']!r}: use one of {', '.join(RESULT_STATUSES)}")
    text = record["position"]
    if status == EntryStatus.NO_SHOW:
        if text:
            raise ValueError("a no_show has no position: leave it empty")
        position = None
    else:
        if not text.isdigit() or int(text) < 1:
            raise ValueError(f"bad position {text!r}: a whole number from 1 (status {status})")
        position = int(text)
    buy_in, prize = _parse_dollars(record, "buy_in"), _parse_dollars(record, "prize") or 0
    if prize and status != EntryStatus.PLAYED:
        # R-PTS-5: a disqualified player takes no prize; R-LATE-3: a no-show never played.
        raise ValueError(f"a {status} row takes no prize: leave it empty or 0")
    key = (date, start_time, name_key(venue))
    return key, event_type, ResultRow(0, clean_name(record["player"]), position, status, prize), venue, buy_in


def parse_results(text: str) -> list[EventResults]:
    """Parse and check a whole results file; raise ResultsFileError naming every bad line (up to 20).

    Checks each row (date, time, venue, event type, player, status, position) and each event
    (one event type, a player at most once, positions forming a valid finishing order: R-PTS-6).
    """
    if text.startswith("\ufeff"):
        text = text[1:]
    reader = csv.DictReader(io.StringIO(text, newline=""))
    reader.fieldnames = _header(reader)
    errors: list[str] = []
    results = _checked_events(_read_events(reader, errors), errors)
    if not results and not errors:
        errors.append("line 2: the file has a header but no results")
    if errors:
        errors.sort(key=lambda message: int(message.split(":")[0].split()[1]))
        if len(errors) > MAX_ERRORS:
            errors = errors[:MAX_ERRORS] + [f"… and {len(errors) - MAX_ERRORS} more problems"]
        raise ResultsFileError(errors)
    return results


def _header(reader: csv.DictReader) -> list[str]:
    """The header line's column names, as the rows are read by; ResultsFileError when a required
    column is missing, one is unknown or named twice, or there is no header at all."""
    header = [(name or "").strip().casefold() for name in (reader.fieldnames or [])]
    missing = [c for c in REQUIRED_COLUMNS if c not in header]
    unknown = [c for c in header if c not in REQUIRED_COLUMNS + OPTIONAL_COLUMNS]
    if not header:
        raise ResultsFileError(["line 1: the file is empty: expected a header line "
                                f"({', '.join(REQUIRED_COLUMNS + OPTIONAL_COLUMNS)})"])
    if missing or unknown or len(set(header)) != len(header):
        problems = []
        if missing:
            problems.append("missing column(s) " + ", ".join(missing))
        if unknown:
            problems.append("unknown column(s) " + ", ".join(unknown))
        if len(set(header)) != len(header):
            problems.append("a column is named twice")
        raise ResultsFileError(["line 1: " + "; ".join(problems)])
    return header


def _read_events(reader: csv.DictReader, errors: list[str]) -> dict[tuple, dict]:
    """Every row checked on its own and grouped by event (date, start, venue), in file order; each
    bad row's problem goes to `errors` and the row is left out."""
    events: dict[tuple, dict] = {}
    width = len(reader.fieldnames or ())
    try:
        for record in reader:
            line = reader.line_num
            if None in record or any(value is None for value in record.values()):
                errors.append(f"line {line}: expected {width} fields, found a different number")
                continue
            values = {k: (v or "").strip() for k, v in record.items()}
            if not any(values.values()):
                continue  # a blank line, as spreadsheets leave at the end
            try:
                key, event_type, row, venue, buy_in = _parse_row(values)
            except ValueError as problem:
                errors.append(f"line {line}: {problem}")
                continue
            event = events.setdefault(key, {"type": event_type, "venue": venue, "rows": [], "line": line})
            if problem := _differs(event, event_type, buy_in):
                errors.append(f"line {line}: {problem}")
                continue
            if buy_in is not None:
                event.setdefault("buy_in", (buy_in, line))
            event["rows"].append(ResultRow(line, row.player, row.position, row.status, row.prize))
    except csv.Error as problem:
        errors.append(f"line {reader.line_num}: {problem}")
    return events


def _differs(event: dict, event_type: str, buy_in: int | None) -> str | None:
    """Why a line cannot belong to the event its date, start and venue name: another event type, or
    another buy-in, than an earlier line of the same event gave; None when it agrees."""
    if event["type"] != event_type:
        return (f"event type {event_type} differs from {event['type']} given for the same event on "
                f"line {event['line']}")
    if buy_in is not None and "buy_in" in event and event["buy_in"][0] != buy_in:
        given, line = event["buy_in"]
        return f"buy_in ${buy_in} differs from ${given} given for the same event on line {line}"
    return None


def _checked_events(events: dict[tuple, dict], errors: list[str]) -> list[EventResults]:
    """R-PTS-6: each event's results, a player at most once and the positions a valid finishing
    order; each problem goes to `errors`."""
    results = []
    for (date, start_time, _), event in events.items():
        found = EventResults(date, start_time, event["venue"], event["type"], tuple(event["rows"]),
                             event.get("buy_in", (0, 0))[0])
        seen: dict[str, int] = {}
        for row in found.rows:
            earlier = seen.setdefault(name_key(row.player), row.line)
            if earlier != row.line:
                errors.append(f"line {row.line}: {row.player} is already in {found.describe()} on line {earlier}")
        try:
            check_finishing_order([r.position for r in found.rows if r.position is not None])
        except ValueError as problem:
            lines = ", ".join(str(r.line) for r in found.rows)
            errors.append(f"line {found.first_line}: positions in {found.describe()} (lines {lines}) "
                          f"do not form a valid finishing order: {problem}")
        results.append(found)
    errors.extend(one_game_at_a_time(results))
    return results


def one_game_at_a_time(events: list[EventResults]) -> list[str]:
    """R-LATE-4: a player still in one game cannot enter another, so no one plays two of the file's
    events that start at the same date and time (at two venues): each such line is named, with the
    line of the other game. A no-show never took a seat, so is in no game."""
    playing: dict[tuple, tuple[EventResults, ResultRow]] = {}
    problems = []
    for event in events:
        for row in event.rows:
            if row.status == EntryStatus.NO_SHOW:
                continue
            earlier = playing.setdefault((event.date, event.start_time, name_key(row.player)), (event, row))
            if earlier[0] is not event:
                problems.append(f"line {row.line}: {row.player} is also in {earlier[0].describe()} on line "
                                f"{earlier[1].line}: one player cannot be in two games at once (R-LATE-4)")
    return problems
