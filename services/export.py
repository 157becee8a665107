"""A whole league as one file, and back: every table that belongs to the league, read from the models'
metadata, written as versioned JSON one row a line (streamed both ways), and imported whole or not at all.

Which tables belong to a league is worked out, not listed: a table belongs when it has a foreign key to
`leagues`, or to a table that belongs (entries → events → leagues, bonus_claims → entries, …). So a new
model that points at the league, a night, a member, a login or a venue joins the export, the import and
the round trip with no code here; tests/web/test_export.py fails on a table that reaches no league
(it must name a way in, or be declared server-wide in SERVER_TABLES).

The file (FORMAT, VERSION): a JSON document laid out one value a line, so it is read a line at a time
and never held whole:

    {"format": "shuffleup-league", "version": 1, "league": "…", "schema": "0008", "tables": [
    {"table": "leagues", "columns": ["id", …], "rows": [
    [1, "Harbour League", …],
    …
    ]},
    …
    ], "rows": 12345, "sha256": "<hex of every line above this one>"}

Rows keep their ids (so a second export is the same file) in primary-key order; dates and times are ISO
text; JSON columns are written with sorted keys. The import reads the file once, in the caller's one
transaction: any refusal (its layout, a value of the wrong type or one its form would refuse, a row the
database refuses, an id it already gives another row, a table or column this schema does not keep, and at
the end its row count and checksum) is raised for the caller
to roll back, so nothing is written. An older file lacking a newer column gets that column's default.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import IO, Any

from sqlalchemy import JSON, BigInteger, Column, Table, delete, func, insert, select, text
from sqlalchemy.exc import DBAPIError, IntegrityError

from league import settings as league_settings
from league import structures
from league.logins import username_key
from league.members import name_key, name_problem
from league.text import text_problem
from services import Refused
from services.models import League
from wiring.extensions import db

FORMAT = "shuffleup-league"
VERSION = 1
# Tables of the whole server, in no league's export: one-time login links are this server's secrets
# (a link made here means nothing on another, and a set-up link belongs to no league).
SERVER_TABLES: frozenset[str] = frozenset({"login_links", "request_keys"})
# A league's rows that stay on this server: a phone's push subscription is addressed to this server's
# VAPID key, and another server's key can send it nothing; what this server's pushes told once only
# (push_sent) is news to no other. Removed with the league, never in its file.
NOT_CARRIED: frozenset[str] = frozenset({"push_subscriptions", "push_sent"})
BATCH = 5_000  # rows read or written at once
# What a file may bring, bounded before it is parsed or stored: a line (one row) of at most a MiB (a
# league's longest, a night's journal entry, is a few KiB), JSON nested at most 32 deep (a journal
# entry is 5), and whole numbers the column holds (an INTEGER 32 bits, a BIGINT 64).
MAX_LINE_BYTES = 1 << 20
MAX_JSON_DEPTH = 32
INT_LIMITS = {False: 2**31 - 1, True: 2**63 - 1}  # by whether the column is a BIGINT
TEXT_LIMIT = 100_000  # a text column without a length (none today)


@dataclass(frozen=True)
class Owner:
    """How a table reaches its league: itself (`leagues`), or a column pointing at `target`, a column
    of an owned table (`parent`)."""
    table: Table
    column: Column | None
    parent: str | None
    target: Column | None


def owners() -> dict[str, Owner]:
    """Every table that belongs to a league, parents before children (metadata's dependency order).
    A direct key to `leagues` wins; otherwise the first (never-NULL ones first) to a table already owned."""
    found: dict[str, Owner] = {}
    for table in db.metadata.sorted_tables:
        if table.name in SERVER_TABLES:
            continue
        if table.name == League.__tablename__:
            found[table.name] = Owner(table, None, None, None)
            continue
        # A column that is never NULL first: a row with a NULL there would reach no league.
        links = [fk for fk in sorted(table.foreign_keys, key=lambda k: (bool(k.parent.nullable), k.parent.name))
                 if fk.column.table.name in found and fk.column.table.name != table.name]
        direct = [fk for fk in links if fk.column.table.name == League.__tablename__]
        if direct or links:
            fk = (direct or links)[0]
            found[table.name] = Owner(table, fk.parent, fk.column.table.name, fk.column)
    return found


def carried() -> dict[str, Owner]:
    """The tables a league file carries: every table the league owns but those in NOT_CARRIED."""
    return {name: owner for name, owner in owners().items() if name not in NOT_CARRIED}


def unowned_tables() -> list[str]:
    """Tables that reach no league and are not declared server-wide: the export would miss them."""
    owned = owners()
    return sorted(t.name for t in db.metadata.sorted_tables if t.name not in owned and t.name not in SERVER_TABLES)


def _belongs(owned: dict[str, Owner], name: str, league_id: int):
    """The WHERE clause of `name`'s rows that belong to the league (through its parents' keys)."""
    owner = owned[name]
    if owner.column is None:
        return _keys(owner.table)[0] == league_id
    parent = owned[owner.parent]
    if parent.column is None:
        return owner.column == league_id
    return owner.column.in_(select(owner.target).where(_belongs(owned, owner.parent, league_id)))


def _keys(table: Table) -> list[Column]:
    """The table's primary key (one column or several); every column for a table without one."""
    return list(table.primary_key.columns) or list(table.columns)


def _rows_query(owned: dict[str, Owner], name: str, league_id: int):
    table = owned[name].table
    return select(*table.columns).where(_belongs(owned, name, league_id)).order_by(*_keys(table))


# ---- Values: to JSON and back, by each column's type ----

def _writer(column: Column) -> Callable[[Any], Any] | None:
    """How a stored value is written to the file; None: as it is (numbers, text, yes/no, JSON)."""
    if isinstance(column.type, JSON):
        return None
    try:
        kind = column.type.python_type
    except NotImplementedError:
        return None
    if kind in (dt.datetime, dt.date, dt.time):
        return lambda value: None if value is None else value.isoformat()
    if kind is Decimal:
        return lambda value: None if value is None else str(value)
    return None


def _reader(column: Column) -> Callable[[Any], Any]:
    """The stored value from the file's, checked against the column's type (a wrong type is refused)."""
    if isinstance(column.type, JSON):
        return lambda value: _json(value, column)
    try:
        kind = column.type.python_type
    except NotImplementedError:
        return lambda value: value
    if kind in (dt.datetime, dt.date, dt.time):
        return lambda value: None if value is None else kind.fromisoformat(_typed(value, str, column))
    if kind is Decimal:
        return lambda value: None if value is None else Decimal(_typed(value, str, column))
    if kind is bool:
        return lambda value: None if value is None else _typed(value, bool, column)
    if kind is int:
        return lambda value: None if value is None else _whole(value, column)
    if kind is str:
        return lambda value: None if value is None else _text(value, column)
    return lambda value: value


def _plain_kind(column: Column) -> type | None:
    """int or bool for a column whose values are stored as the file has them, once their type is checked."""
    if isinstance(column.type, JSON):
        return None
    try:
        kind = column.type.python_type
    except NotImplementedError:
        return None
    return kind if kind in (int, bool) else None


def _typed(value: Any, kind: type, column: Column) -> Any:
    if type(value) is not kind:
        raise ValueError(f"{column.table.name}.{column.name}: expected {kind.__name__}, found {value!r:.40}")
    return value


def _text(value: Any, column: Column) -> str:
    """Text as the columns hold it, by the one hygiene check of typed text (league.text.text_problem:
    no NUL, which PostgreSQL refuses, no control, invisible or right-to-left character, no lone
    surrogate) and no longer than the column."""
    _typed(value, str, column)
    limit = getattr(column.type, "length", None) or TEXT_LIMIT
    if problem := text_problem(value, limit, f"{column.table.name}.{column.name}"):
        raise ValueError(problem)
    if len(value) > limit:  # stored text is already clean: its raw length is what the column takes
        raise ValueError(f"{column.table.name}.{column.name} is longer than {limit} characters")
    return value


def _int_limit(column: Column) -> int:
    return INT_LIMITS[isinstance(column.type, BigInteger)]


def _whole(value: Any, column: Column) -> int:
    if type(value) is not int:
        raise ValueError(f"{column.table.name}.{column.name}: expected a whole number, found {value!r:.40}")
    if abs(value) > _int_limit(column):
        raise ValueError(f"{column.table.name}.{column.name}: {value!r:.40} is larger than the column holds")
    return value


def _json(value: Any, column: Column) -> Any:
    """A JSON column's value: nested at most MAX_JSON_DEPTH deep, its texts (keys too) as clean of NUL
    and lone surrogates as any text (PostgreSQL refuses the first, no encoder writes the second), its
    numbers finite and within 64 bits."""
    where = f"{column.table.name}.{column.name}"
    pending = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if depth > MAX_JSON_DEPTH:
            raise ValueError(f"{where}: nested deeper than {MAX_JSON_DEPTH}")
        if isinstance(item, str):
            if "\x00" in item or any(0xD800 <= ord(ch) <= 0xDFFF for ch in item):
                raise ValueError(f"{where}: a text holds a NUL character or a broken one (a lone surrogate)")
        elif isinstance(item, bool) or item is None:
            continue
        elif isinstance(item, int):
            if abs(item) > INT_LIMITS[True]:
                raise ValueError(f"{where}: {item!r:.40} is larger than a number ShuffleUp keeps")
        elif isinstance(item, float):
            if item != item or item in (float("inf"), float("-inf")):
                raise ValueError(f"{where}: a number that is not finite")
        elif isinstance(item, dict):
            pending.extend((part, depth + 1) for pair in item.items() for part in pair)
        elif isinstance(item, list):
            pending.extend((part, depth + 1) for part in item)
    return value


# One encoder for every line (json.dumps with options builds a new one per call).
_line = json.JSONEncoder(ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode


# ---- Export ----

def export_lines(league: League, counted: dict[str, int] | None = None) -> Iterator[str]:
    """The league's file in pieces of whole lines (each ending in a newline), read from the database
    as it goes (rows in batches, never a whole table at once). The caller holds one read
    transaction. `counted`, when given, gets the number of rows written under "rows"."""
    digest = hashlib.sha256()
    total = 0

    def out(lines: list[str]) -> str:
        piece = "".join(lines)
        digest.update(piece.encode())
        return piece

    owned = carried()
    schema = db.session.execute(text("SELECT version_num FROM alembic_version")).scalar() if _has_alembic() else None
    yield out([_line({"format": FORMAT, "version": VERSION, "league": league.name, "schema": schema})[:-1]
               + ',"tables":[\n'])
    names = list(owned)
    for at, name in enumerate(names):
        table = owned[name].table
        columns = list(table.columns)
        writers = [(i, w) for i, w in enumerate(_writer(c) for c in columns) if w is not None]
        lines = [_line({"table": name, "columns": [c.name for c in columns]})[:-1] + ',"rows":[\n']
        result = db.session.execute(_rows_query(owned, name, league.id).execution_options(yield_per=BATCH))
        # Each row's line ends when the next begins: ",\n" before every row but the first, so the last
        # row has no comma whichever batch it falls in.
        separator = ""
        for row in result:
            values = list(row)
            for i, write in writers:
                values[i] = write(values[i])
            lines.append(separator + _line(values))
            separator = ",\n"
            total += 1
            if len(lines) >= BATCH:
                yield out(lines)
                lines = []
        lines.append(("\n" if separator else "") + "]}" + (",\n" if at < len(names) - 1 else "\n"))
        yield out(lines)
    if counted is not None:
        counted["rows"] = total
    yield f'],"rows":{total},"sha256":"{digest.hexdigest()}"}}\n'


def export_league(league: League, file: IO[str]) -> int:
    """Write the league's file to `file`; the number of rows written."""
    counted: dict[str, int] = {}
    for piece in export_lines(league, counted):
        file.write(piece)
    return counted["rows"]


def _has_alembic() -> bool:
    return db.inspect(db.session.connection()).has_table("alembic_version")


# ---- Import ----

@dataclass(frozen=True)
class ImportSummary:
    league: str
    rows: dict[str, int]


class ExportFileError(Refused):
    """The file is not one this ShuffleUp can import; the message says why. Nothing was written."""


def _read_lines(file: IO[bytes]) -> Iterator[tuple[int, str]]:
    for number, raw in enumerate(file, start=1):
        try:
            yield number, raw.decode("utf-8")
        except UnicodeDecodeError:
            if number == 1:
                raise ExportFileError("this is not a ShuffleUp league export (it is not UTF-8 text)") from None
            raise ExportFileError(f"line {number} is not UTF-8 text: the file is corrupted") from None


def _header(line: str) -> dict[str, Any]:
    suffix = ',"tables":['
    if not line.endswith(suffix + "\n"):
        raise ExportFileError("this is not a ShuffleUp league export (its first line is not one)")
    try:
        header = json.loads(line[:-len(suffix) - 1] + "}")
    except (ValueError, RecursionError):  # RecursionError: JSON nested past the parser's depth
        raise ExportFileError("this is not a ShuffleUp league export (its first line is not one)") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise ExportFileError("this is not a ShuffleUp league export (it names no ShuffleUp format)")
    version = header.get("version")
    if type(version) is not int or version < 1:
        raise ExportFileError(f"the export's format version {version!r} is not one ShuffleUp wrote")
    if version > VERSION:
        raise ExportFileError(f"the export is format version {version}, from a newer ShuffleUp: this one reads "
                              f"version {VERSION} and before; upgrade ShuffleUp to import it")
    if not isinstance(header.get("league"), str):
        raise ExportFileError("the export names no league")
    if problem := text_problem(header["league"], 120, "the league's name in the file", required=True):
        raise ExportFileError(problem)
    return header


def _parsed(file: IO[bytes]) -> Iterator[tuple[str, Any, int]]:
    """The file's values in order: ("header", {...}, line), ("table", {...}, line), ("row", [...], line),
    ("end", None, line), ("footer", {...}, line). Checks the layout, not the checksum."""
    lines = _read_lines(file)
    try:
        number, first = next(lines)
    except StopIteration:
        raise ExportFileError("the file is empty") from None
    yield "header", _header(first), number
    state, last_row = "tables", False
    for number, line in lines:
        if not line.endswith("\n"):
            raise ExportFileError(f"line {number} is cut short: the file is truncated")
        body = line[:-1]
        try:
            if state == "tables" and body.startswith("{"):
                if not body.endswith(',"rows":['):
                    raise ValueError
                table = json.loads(body[:-len(',"rows":[')] + "}")
                if not isinstance(table.get("table"), str) or not isinstance(table.get("columns"), list):
                    raise ValueError
                state, last_row = "rows", False
                yield "table", table, number
            elif state == "rows" and body.startswith("["):
                if last_row:
                    raise ValueError
                last_row = not body.endswith(",")
                row = json.loads(body if last_row else body[:-1])
                if not isinstance(row, list):
                    raise ValueError
                yield "row", row, number
            elif state == "rows" and body in ("]}", "]},"):
                state = "tables" if body == "]}," else "footer"
                yield "end", None, number
            elif state == "footer" or (state == "tables" and body.startswith("]")):
                if not body.startswith('],"rows":'):
                    raise ValueError
                footer = json.loads("{" + body[2:])
                state = "done"
                yield "footer", footer, number
            else:
                raise ValueError
        except (ValueError, RecursionError):  # RecursionError: JSON nested past the parser's depth
            raise ExportFileError(f"line {number} is not as a ShuffleUp export writes it: "
                                  "the file is corrupted or was edited") from None
    if state != "done":
        raise ExportFileError("the file ends before its last line: it is truncated")


class _RowRefused(ExportFileError):
    """A row the database or its column refused: the file may be damaged further on (see _damaged)."""


class _Hashed:
    """The file's lines, hashing every line but the last as it goes (the last carries the hash of the
    others)."""

    def __init__(self, file: IO[bytes]):
        self.file, self.digest, self.pending = file, hashlib.sha256(), None

    def __iter__(self):
        number = 0
        # A line at a time and never longer than MAX_LINE_BYTES: a file of one endless line is refused
        # at its first MiB, not held whole.
        while raw := self.file.readline(MAX_LINE_BYTES + 1):
            number += 1
            if len(raw) > MAX_LINE_BYTES:
                raise ExportFileError(f"line {number} is longer than {MAX_LINE_BYTES >> 20} MiB: ShuffleUp writes "
                                      "no such line, so the file was edited or is not a league export")
            if self.pending is not None:
                self.digest.update(self.pending)
            self.pending = raw
            yield raw


def _check_table(owned: dict[str, Owner], table: dict[str, Any], number: int) -> Table:
    name = table["table"]
    if name not in owned:
        raise ExportFileError(f"line {number}: the file has a table {name!r} this ShuffleUp does not keep")
    known = {c.name for c in owned[name].table.columns}
    columns = table["columns"]
    unknown = [c for c in columns if c not in known]
    if unknown or len(set(columns)) != len(columns) or any(k.name not in columns for k in _keys(owned[name].table)):
        raise ExportFileError(f"line {number}: table {name} has columns this ShuffleUp does not keep: "
                              f"{', '.join(map(str, unknown)) or 'a column twice, or its key missing'}")
    return owned[name].table


class _TableWriter:
    """One table's rows from the file into the database, in batches: each value checked against its
    column's type, turned into what the database stores by the dialect's own bind processors, and
    written with the driver's executemany (the ORM's per-row work is most of an import's time)."""

    def __init__(self, table: Table, columns: list[str]):
        dialect = db.session.get_bind().dialect
        compiled = insert(table).compile(dialect=dialect, column_keys=columns)
        self.table, self.columns, self.sql = table, columns, str(compiled)
        self.positional = compiled.positional
        # The statement's parameters in its own order: the file's columns, then any column the file
        # lacks (written by an older ShuffleUp) that has a default, filled as an INSERT would.
        self.names = list(compiled.positiontup) if compiled.positional else list(compiled.params)
        # Whole numbers and yes/no values are only checked (most of a league's values: a type test in
        # one loop, no call); the others are read by their column's reader and the dialect's processor.
        self.checked: list[tuple[int, type, int]] = []
        self.readers: list[tuple[int, Callable[[Any], Any]]] = []
        for at, name in enumerate(columns):
            column = table.columns[name]
            processor = column.type.dialect_impl(dialect).bind_processor(dialect)
            kind = _plain_kind(column)
            if processor is None and kind is not None:
                self.checked.append((at, kind, _int_limit(column) if kind is int else 1))
            else:
                self.readers.append((at, _reader(column) if processor is None
                                     else _then(_reader(column), processor)))
        self.defaults = {}
        for name in self.names:
            if name not in columns:
                column = table.columns[name]
                processor = column.type.dialect_impl(dialect).bind_processor(dialect) or (lambda value: value)
                self.defaults[name] = _default(column, processor)
        self.at = {name: columns.index(name) for name in self.names if name in columns}
        self.rule_check = ROW_CHECKS.get(table.name)
        self.batch: list[Any] = []
        self.written = 0

    def add(self, row: list[Any], number: int) -> None:
        if len(row) != len(self.columns):
            raise _RowRefused(f"line {number}: a row of {self.table.name} has {len(row)} values for "
                                  f"{len(self.columns)} columns")
        values = row
        for at, kind, limit in self.checked:
            value = values[at]
            if value is not None and (type(value) is not kind or not -limit <= value <= limit):
                column = self.table.columns[self.columns[at]]
                found = "a number larger than the column holds" if type(value) is kind else f"{value!r:.40}"
                raise _RowRefused(f"line {number}: {column.table.name}.{column.name}: expected "
                                  f"{'a whole number' if kind is int else kind.__name__}, found {found}")
        if self.rule_check is not None and (problems := self.rule_check(dict(zip(self.columns, row)))):
            raise _RowRefused(f"line {number}: a row of {self.table.name} holds what its form would refuse: "
                              + "; ".join(problems[:3]))
        try:
            for at, read in self.readers:
                values[at] = read(values[at])
        except (ValueError, TypeError) as problem:
            raise _RowRefused(f"line {number}: {problem}") from None
        ordered = [values[self.at[name]] if name in self.at else self.defaults[name]() for name in self.names]
        self.batch.append(tuple(ordered) if self.positional else dict(zip(self.names, ordered)))
        if len(self.batch) >= BATCH:
            self.flush(number)

    def flush(self, number: int) -> None:
        if not self.batch:
            return
        self._refuse_taken_ids(number)
        try:
            db.session.connection().exec_driver_sql(self.sql, self.batch)
        except (IntegrityError, DBAPIError) as problem:
            reason = str(problem.orig).splitlines()[0][:200] if problem.orig else "a row was refused"
            raise _RowRefused(f"by line {number}: the database refused a row of {self.table.name} "
                                  f"({reason})") from None
        self.written += len(self.batch)
        self.batch = []


    def _refuse_taken_ids(self, number: int) -> None:
        """Rows keep their ids, so an id this database already gives another row is refused by name
        (the database holds other leagues or logins, such as its operator, whose ids the file's miss)."""
        keys = list(self.table.primary_key.columns)
        if len(keys) != 1 or keys[0].name not in self.at:
            return  # a composite key: its parts are ids of tables checked already
        key, at = keys[0], self.names.index(keys[0].name)
        ids = [row[at] if self.positional else row[key.name] for row in self.batch]
        taken = db.session.scalars(select(key).where(key.in_(ids)).order_by(key).limit(3)).all()
        if taken:
            raise _RowRefused(f"by line {number}: this database already has {self.table.name} with the file's ids "
                              f"({', '.join(map(str, taken))}): a league file keeps its ids, so it is imported "
                              "into a database whose rows do not share them (a new one, or one with only its "
                              "operator and leagues made since)")


# ---- What the forms and settings check, checked again on the way in from a file ----
# A file that passes its checksum may still have been edited (the checksum is no signature: anyone can
# recompute it), so each value a row brings goes through the validator of the form or setting that
# writes it; a value that only its type could check is checked by type above.

def _league_row(row: dict[str, Any]) -> list[str]:
    """A league's name, kind, time zone and settings, as the new-league form and the settings page
    check them (league/settings.py problems: each value and the values together, through stored_problems)."""
    kind = row.get("kind")
    found = [text_problem(row["name"], 120, "the league's name", required=True) if isinstance(row.get("name"), str)
             else None]
    if isinstance(row.get("slug"), str) and not SLUG.fullmatch(row["slug"]):
        found.append(f"the league's address {row['slug'][:60]!r} is not one ShuffleUp makes (a-z, 0-9 and dashes)")
    if row.get("timezone") is not None and not league_settings.zone_known(row["timezone"]):
        found.append(f"the time zone {str(row['timezone'])[:60]!r} is not one this machine knows")
    columns = {name: row.get(name) for name in ("pass_down", "payout_percent", "shot_clock_seconds", "timezone")}
    found += league_settings.stored_problems(kind if kind in ("free", "cash") else "cash", row.get("settings"), columns)
    return [problem for problem in found if problem]


def _event_row(row: dict[str, Any]) -> list[str]:
    """A night's blind structure as the structure editor checks it (R-CLOCK-1: league.structures
    from_json) and its kept settings as the settings page checks each (snapshot_problems): a bad one
    would break every page and the API of that night."""
    found: list[str] = []
    if row.get("structure") is not None:
        try:
            structures.from_json(row["structure"])
        except ValueError as problem:
            found.append(f"its blind structure: {str(problem)[:200]}")
    found += league_settings.snapshot_problems(row.get("settings"), str(row.get("event_type")))
    return found


def _member_row(row: dict[str, Any]) -> list[str]:
    """A member's name as the check-in form takes it (R-MEM-1: name_problem), and the form it is matched
    by (name_key) its own: another would let a second "Ann Lee" in, or find Ann under Bob's name."""
    name = row.get("name")
    if not isinstance(name, str):
        return []
    if problem := name_problem(name):
        return [problem]
    if "name_key" in row and row["name_key"] != name_key(name):
        return [f"the member {name[:40]!r} is matched by another name's key"]
    return []


def _login_row(row: dict[str, Any]) -> list[str]:
    """A login's username as one name whatever its case (R-MEM-2: username_key): another key would let a
    second "hana" in."""
    username = row.get("username")
    if isinstance(username, str) and "username_key" in row and row["username_key"] not in (None,
                                                                                          username_key(username)):
        return [f"the login {username[:40]!r} is keyed as another name"]
    return []


ROW_CHECKS: dict[str, Callable[[dict[str, Any]], list[str]]] = {
    "leagues": _league_row, "events": _event_row, "members": _member_row, "users": _login_row}
SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")  # services.models.slugify's


def _default(column: Column, processor: Callable[[Any], Any]) -> Callable[[], Any]:
    default = column.default
    if default is None or not getattr(default, "is_scalar", False) and not getattr(default, "is_callable", False):
        return lambda: None  # the database's own default, or NULL
    if default.is_callable:
        return lambda: processor(default.arg(None))
    return lambda: processor(default.arg)


def _then(first: Callable[[Any], Any], second: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda value: None if value is None else second(first(value))


def import_league(file: IO[bytes], *, replacing: League | None = None) -> ImportSummary:
    """Import a league file into this database in the current transaction; on any refusal the caller
    rolls back, and nothing is written (the file is read once, so its checksum and row count are
    known only at its end: a corrupted file is refused there, its rows never committed).

    Rows keep their ids; the database must hold no row with one of them (an operator's login, other
    leagues made since may stand) and no league of the same name. Every value is checked on the way
    in as its form or setting checks it (ROW_CHECKS, the readers), so a file edited with a recomputed
    checksum is refused by the line of its bad value. `replacing` is an empty league (nothing but its
    own row and its logins) that the file takes the place of, as on the organiser's page of a new league.
    """
    owned = carried()
    hashed = _Hashed(file)
    try:
        header, counts, footer, rows = _import_rows(owned, hashed, replacing)
    except _RowRefused:
        if _damaged(hashed):  # a refused row of a corrupted file: say what is wrong with the file
            raise ExportFileError(CORRUPTED) from None
        raise
    if footer.get("sha256") != hashed.digest.hexdigest() or footer.get("rows") != rows:
        raise ExportFileError(CORRUPTED)
    _catch_up_sequences(counts)
    return ImportSummary(header["league"], counts)


CORRUPTED = "the file's checksum does not match its contents: it is corrupted or was edited"


def _damaged(hashed: _Hashed) -> bool:
    """After a refusal part-way: whether the rest of the file shows it damaged (its last line's checksum
    not that of the lines before it)."""
    try:
        for _ in hashed:
            pass
        last = (hashed.pending or b"").decode("utf-8")
        footer = json.loads("{" + last[2:]) if last.startswith('],"rows":') else {}
    except (ValueError, UnicodeDecodeError, RecursionError, ExportFileError):
        return True
    return footer.get("sha256") != hashed.digest.hexdigest()


def _import_rows(owned: dict[str, Owner], hashed: _Hashed, replacing: League | None):
    header, footer, rows, writer = None, None, 0, None
    counts: dict[str, int] = {}
    for kind, value, number in _parsed(hashed):
        if kind == "header":
            header = value
            if replacing is not None:
                _remove_empty_league(replacing)
            if leagues_named(header["league"]):
                raise ExportFileError(f"this database already has a league named {header['league']!r}: "
                                      "import into an empty database")
        elif kind == "table":
            table = _check_table(owned, value, number)
            if table.name in counts:
                raise ExportFileError(f"line {number}: table {table.name} is in the file twice")
            writer = _TableWriter(table, value["columns"])
        elif kind == "row":
            writer.add(value, number)
            rows += 1
        elif kind == "end":
            writer.flush(number)
            counts[writer.table.name] = writer.written
        elif kind == "footer":
            footer = value
    return header, counts, footer, rows


def leagues_named(name: str) -> bool:
    return db.session.scalar(select(func.count()).select_from(League).where(
        func.lower(League.name) == name.strip().lower())) > 0


def _catch_up_sequences(counts: dict[str, int]) -> None:
    """PostgreSQL's id sequences do not see ids written as given: move each on past its table's largest."""
    if db.session.get_bind().dialect.name != "postgresql":
        return
    owned = owners()
    for name in counts:
        keys = list(owned[name].table.primary_key.columns)
        if len(keys) != 1 or keys[0].autoincrement not in (True, "auto") or keys[0].type.python_type is not int:
            continue  # no sequence behind it
        key = keys[0].name
        db.session.execute(text(
            f"SELECT setval(pg_get_serial_sequence('{name}', '{key}'), "
            f"GREATEST((SELECT MAX({key}) FROM {name}), 1)) WHERE pg_get_serial_sequence('{name}', '{key}') "
            "IS NOT NULL"))


def _count(owned: dict[str, Owner], name: str, league_id: int) -> int:
    return db.session.scalar(select(func.count()).select_from(owned[name].table).where(
        _belongs(owned, name, league_id)))


def is_empty(league: League) -> bool:
    """Whether the league has nothing of its own yet but its logins (a new league an export may fill)."""
    owned = owners()
    return not any(_count(owned, name, league.id) for name in owned if name not in (League.__tablename__, "users"))


def _remove_empty_league(league: League) -> None:
    if not is_empty(league):
        raise ExportFileError(f"{league.name} already has venues, members or nights: a league file is imported "
                              "only into a new, empty league or an empty database")
    remove_league(league)


def remove_league(league: League) -> None:
    """Every row of the league, the same tables its export holds (owners), children before their parents;
    the caller commits. What goes can be counted first with table_counts."""
    owned = owners()
    league_id = league.id
    db.session.flush()  # nothing of the ORM's pending may land after the rows are gone
    for name in reversed(list(owned)):  # children before their parents
        db.session.execute(delete(owned[name].table).where(_belongs(owned, name, league_id)))


def table_counts(league: League) -> dict[str, int]:
    """How many rows of each table belong to the league (for the organiser's page)."""
    owned = owners()
    return {name: _count(owned, name, league.id) for name in owned}


def iter_file(lines: Iterable[str]) -> Iterator[bytes]:
    """The export's lines as UTF-8 bytes (for a download)."""
    for line in lines:
        yield line.encode()
