"""The night's journal: every host action is one transaction, recorded with who, when and what,
and can be taken back exactly, and put back again.

An action notes each row before it changes it (`touch`) and each row it creates (`created`); undo
restores the noted values and deletes the created rows, newest action first, keeping the rows as the
action left them; redo puts those back while nothing else has changed them, until a new action is made.

The event's clock (its state, structure, version and shot clock) is not the roster's: it changes
only through services/clocks.py's versioned writes, and every host action moves its version on. Undo never
puts those columns back: undoing a settle or a deal would otherwise turn the version backwards
(the phones, already past it, would ignore the next change) and move a running clock.
"""
from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy.orm import defer

from services import Refused
from services.models import Action, Event, Member, utcnow
from wiring.extensions import db


def _plain(value: Any) -> Any:
    if value is None or type(value) in (int, str, bool):
        return value
    if isinstance(value, (dt.datetime, dt.date, dt.time)):
        return value.isoformat()
    return value


def _restore(column, value: Any) -> Any:
    if value is None:
        return None
    kind = column.type.python_type
    if kind in (dt.datetime, dt.date, dt.time):
        return kind.fromisoformat(value)
    return value


# Columns an action never notes nor restores (see the module's docstring).
NOT_JOURNALLED = {"events": frozenset({
    "clock_index", "clock_item_elapsed_ms", "clock_running_since_ms", "clock_started", "clock_version",
    "clock_changed_ms", "shot_started_ms", "shot_seat", "structure"})}


_MODELS: dict[str, Any] = {}
_COLUMNS: dict[str, tuple[str, ...]] = {}


def _journalled(table) -> tuple[str, ...]:
    """The column keys an action notes for a row of `table` (computed once per table)."""
    keys = _COLUMNS.get(table.name)
    if keys is None:
        skip = NOT_JOURNALLED.get(table.name, ())
        keys = _COLUMNS[table.name] = tuple(c.key for c in table.columns if c.key not in skip)
    return keys


def _model(table: str):
    if not _MODELS:
        _MODELS.update({mapper.local_table.name: mapper.class_ for mapper in db.Model.registry.mappers})
    try:
        return _MODELS[table]
    except KeyError:
        raise LookupError(table) from None


class Journal:
    """Collects one action's changes; `record()` adds the Action to the session (the caller commits)."""

    def __init__(self, event: Event, user_id: int | None, kind: str, summary: str):
        self.action = Action(event_id=event.id, user_id=user_id, kind=kind, summary=summary[:200], changes=[])
        self._seen: set[tuple[str, int]] = set()
        self._created: list[Any] = []
        self._created_ids: list[tuple[str, int]] = []

    def touch(self, row) -> Any:
        """Note the row's values before this action changes it (once per row)."""
        key = (row.__table__.name, row.id)
        if key not in self._seen:
            self._seen.add(key)
            # The loaded values straight from the row's state (a settle notes 200 rows of 30 columns;
            # the attribute machinery was most of it), any not loaded through the attribute.
            loaded = row.__dict__
            values = {name: _plain(loaded[name] if name in loaded else getattr(row, name))
                      for name in _journalled(row.__table__)}
            self.action.changes.append([key[0], key[1], values])
        return row

    def created(self, row) -> Any:
        """Note a row this action adds (its id is known once the session flushes)."""
        self._created.append(row)
        return row

    def created_ids(self, table: str, ids: list[int]) -> None:
        """Note rows this action added without building them in the session (a bulk INSERT): the table's
        name and their ids."""
        self._created_ids.extend((table, row_id) for row_id in ids)

    def record(self) -> Action:
        """Add the action to the session, with the ids of the rows it created."""
        db.session.flush()
        for row in self._created:
            self.action.changes.append([row.__table__.name, row.id, None])
        for table, row_id in self._created_ids:
            self.action.changes.append([table, row_id, None])
        db.session.add(self.action)
        return self.action


def last_action(event: Event) -> Action | None:
    """The newest action of the night not yet taken back. Its `changes` (every row a settle or a seat
    draw noted: hundreds of values) load only when read, as undo does."""
    return db.session.scalar(db.select(Action).options(defer(Action.changes), defer(Action.redo))
                             .where(Action.event_id == event.id, Action.undone_at.is_(None))
                             .order_by(Action.id.desc()).limit(1))


def undo_since(event: Event, action_id: int, newest_seen: int | None = None) -> list[Action]:
    """Take back one of the night's actions and every later one, newest first, then it: each undo
    restores what the state was before that action, so the night is as it was before `action_id`.
    Later actions already taken back are passed over (their changes are undone already).

    Refused, nothing done, when the action is not this event's, is already undone, or (with
    `newest_seen`) the night's newest action is no longer the one the host's screen showed (another
    phone acted meanwhile). Returns the actions taken back, newest first. The caller commits."""
    action = db.session.get(Action, action_id)
    if action is None or action.event_id != event.id:
        raise Refused("That action is not in tonight's journal.")
    if action.undone_at is not None:
        raise Refused(f"Already undone: {action.summary}")
    live = list(db.session.scalars(db.select(Action).where(
        Action.event_id == event.id, Action.id >= action.id, Action.undone_at.is_(None)).order_by(Action.id.desc())))
    if newest_seen is not None and live[0].id != newest_seen:
        raise Refused("The journal changed on another screen: look at it again, then undo.")
    turn = db.session.scalar(db.select(db.func.max(Action.id)).where(Action.event_id == event.id))
    for later in live:
        undo(later, turn)
    return live


def _load(changes: list) -> dict[tuple[str, int], Any]:
    """The rows an action noted, by (table, id): one query per table and 500 ids (not one per row:
    undoing a seat draw or a settle notes every entry of the night)."""
    wanted: dict[str, set[int]] = {}
    for table, row_id, _ in changes:
        wanted.setdefault(table, set()).add(row_id)
    rows: dict[tuple[str, int], Any] = {}
    for table, ids in wanted.items():
        model = _model(table)
        ordered = sorted(ids)
        for start in range(0, len(ordered), 500):
            for row in db.session.scalars(db.select(model).where(model.id.in_(ordered[start:start + 500]))):
                rows[(table, row.id)] = row
    return rows


def _values(row) -> dict[str, Any]:
    return {name: _plain(getattr(row, name)) for name in _journalled(row.__table__)}


def undo(action: Action, turn: int | None = None) -> None:
    """Take an action back: restore what it changed and remove what it created (newest first).
    The action stays in the journal, marked undone, with the rows as it left them (`redo`) and the
    night's newest action then (`turn`, read when not given; kept as `undone_turn`), for Redo. The
    caller commits.

    A row the action created goes, whatever else the action noted about it (a late entrant is
    created, then seated)."""
    if turn is None:
        turn = db.session.scalar(db.select(db.func.max(Action.id)).where(Action.event_id == action.event_id))
    changes = list(reversed(action.changes))
    created = {(table, row_id) for table, row_id, before in changes if before is None}
    rows = _load(changes)
    kept: dict[tuple[str, int], dict[str, Any] | None] = {}
    for table, row_id, _ in action.changes:
        if (table, row_id) not in kept:
            row = rows.get((table, row_id))
            kept[(table, row_id)] = _values(row) if row is not None else None
    _put(rows, [(table, row_id, before) for table, row_id, before in changes
                if before is None or (table, row_id) not in created])
    # Set together once the rows are back: one UPDATE of the action at the commit.
    action.redo = [[table, row_id, after] for (table, row_id), after in kept.items()]
    action.undone_turn, action.undone_at = turn, utcnow()


GONE_MEMBER = ("This can't be taken back: a player it would bring back has had their member record "
               "deleted by the organiser since.")


def _members_there(rows: dict[tuple[str, int], Any], states: list[tuple[str, int, dict[str, Any] | None]]) -> None:
    """R-MEM-1: a row put back under a member (a turned-away arrival's entry) needs that member's record;
    the organiser may have deleted it since (services.members.delete). Refused, nothing done, then."""
    wanted = {values["member_id"] for table, row_id, values in states
              if values and values.get("member_id") is not None and rows.get((table, row_id)) is None}
    wanted -= {row_id for table, row_id, values in states if table == "members" and values}  # put back here too
    if wanted:
        found = set(db.session.scalars(db.select(Member.id).where(Member.id.in_(wanted))))
        if wanted - found:
            raise Refused(GONE_MEMBER)


def _put(rows: dict[tuple[str, int], Any], states: list[tuple[str, int, dict[str, Any] | None]]) -> None:
    """Make each noted row hold its values (added again under its id if it is gone), or, None, remove
    it; in the order given, flushed wherever removals and restorations alternate, so a unique key
    freed by one is free for the next."""
    _members_there(rows, states)
    removing: bool | None = None
    for table, row_id, values in states:
        if removing is not None and removing != (values is None):
            db.session.flush()
        removing = values is None
        row = rows.get((table, row_id))
        if values is None:
            if row is not None:
                db.session.delete(row)
            continue
        model = _model(table)
        if row is None:
            row = rows[(table, row_id)] = model(id=row_id)
            db.session.add(row)
        skip = NOT_JOURNALLED.get(table, ())
        for column in model.__table__.columns:
            if column.key in values and column.key not in skip:
                setattr(row, column.key, _restore(column, values[column.key]))
    db.session.flush()


def _unchanged(row, before: dict[str, Any]) -> bool:
    """Whether the row still holds the values Undo put back (those it noted: a column added since
    the action is not among them)."""
    now = _values(row)
    return all(now.get(name) == value for name, value in before.items())


def redo_of(actions: list[Action], newest_live: Action | None) -> Action | None:
    """The action Redo puts back, of `actions` (every one taken back since the night's newest action
    still standing, `newest_live`, among them): the last taken back, and of several taken back at once
    the oldest first. A new action ends it: those taken back before it are older than it."""
    kept = [a for a in actions if a.undone_at is not None and a.undone_turn is not None
            and (newest_live is None or a.id > newest_live.id)]
    return min(kept, key=lambda a: (-a.undone_turn, a.id), default=None)


def redo_next(event: Event, newest_live: Action | None) -> Action | None:
    """`redo_of` the night's actions taken back since `newest_live`, read from the journal."""
    query = db.select(Action).options(defer(Action.changes), defer(Action.redo)).where(
        Action.event_id == event.id, Action.undone_turn.is_not(None))
    if newest_live is not None:
        query = query.where(Action.id > newest_live.id)
    return redo_of(list(db.session.scalars(query)), newest_live)


def redo(event: Event, action_id: int | None, newest_live: Action | None) -> Action:
    """Put back the action Undo took back (`redo_next`, which the host's screen showed as
    `action_id`): the rows as it left them, and it stands in the journal again. Refused, nothing
    done, when it is not what Redo would put back now (redone or undone on another screen, or a new
    action since), or a row it changed has changed since (a vote, a phone's check-in). The caller
    commits."""
    action = redo_next(event, newest_live)
    if action is None or action.id != action_id:
        raise Refused("Nothing to redo, or it was already redone on another screen.")
    rows = _load(action.changes)
    created = {(table, row_id) for table, row_id, before in action.changes if before is None}
    for table, row_id, before in action.changes:
        row = rows.get((table, row_id))
        left_as = None if (table, row_id) in created else before
        if (row is None) != (left_as is None) or (row is not None and not _unchanged(row, left_as)):
            raise Refused(f"The night has changed since it was taken back, so it can't be put back: "
                          f"{action.summary}")
    _put(rows, [(table, row_id, after) for table, row_id, after in action.redo])
    action.undone_at = action.redo = action.undone_turn = None
    return action
