"""The night's journal: every host action is one transaction, recorded with who, when and what,
and can be taken back exactly (issue 4: "recorded and undoable").

An action notes each row before it changes it (`touch`) and each row it creates (`created`); undo
restores the noted values and deletes the created rows, newest action first.
"""
from __future__ import annotations

import datetime as dt
from typing import Any

from extensions import db
from models import Action, Event, utcnow


def _plain(value: Any) -> Any:
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


def _model(table: str):
    for mapper in db.Model.registry.mappers:
        if mapper.local_table.name == table:
            return mapper.class_
    raise LookupError(table)


class Journal:
    """Collects one action's changes; `record()` adds the Action to the session (the caller commits)."""

    def __init__(self, event: Event, user_id: int | None, kind: str, summary: str):
        self.action = Action(event_id=event.id, user_id=user_id, kind=kind, summary=summary[:200], changes=[])
        self._seen: set[tuple[str, int]] = set()
        self._created: list[Any] = []

    def touch(self, row) -> Any:
        """Note the row's values before this action changes it (once per row)."""
        key = (row.__table__.name, row.id)
        if key not in self._seen:
            self._seen.add(key)
            values = {c.key: _plain(getattr(row, c.key)) for c in row.__table__.columns}
            self.action.changes.append([key[0], key[1], values])
        return row

    def created(self, row) -> Any:
        """Note a row this action adds (its id is known once the session flushes)."""
        self._created.append(row)
        return row

    def record(self) -> Action:
        """Add the action to the session, with the ids of the rows it created."""
        db.session.flush()
        for row in self._created:
            self.action.changes.append([row.__table__.name, row.id, None])
        db.session.add(self.action)
        return self.action


def last_action(event: Event) -> Action | None:
    """The newest action of the night not yet taken back."""
    return db.session.scalar(db.select(Action).where(Action.event_id == event.id, Action.undone_at.is_(None))
                             .order_by(Action.id.desc()).limit(1))


def undo(action: Action) -> None:
    """Take an action back: restore what it changed and remove what it created (newest first).
    The action stays in the journal, marked undone. The caller commits."""
    for table, row_id, before in reversed(action.changes):
        model = _model(table)
        row = db.session.get(model, row_id)
        if before is None:
            if row is not None:
                db.session.delete(row)
            continue
        if row is None:
            row = model(id=row_id)
            db.session.add(row)
        for column in model.__table__.columns:
            if column.key in before:
                setattr(row, column.key, _restore(column, before[column.key]))
        db.session.flush()
    action.undone_at = utcnow()
