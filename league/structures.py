"""Blind structures: levels and breaks, their checks, storage form and templates (R-CLOCK-1)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from league.text import text_problem

MS_PER_MINUTE = 60_000
MIN_MINUTES = 1
MAX_MINUTES = 180
# More items than any night plays (a long final has ~40): every screen's stream carries the whole
# structure, so a pasted or scripted 3,000-level one would weigh on every phone in the room.
MAX_ITEMS = 100
MAX_LABEL_LENGTH = 40  # a break's label, as the editor's field holds it
MAX_COLOUR_UP_LENGTH = 80  # a break's colour-up note
# R-LATE-1: "the major break commences (60 minutes)" when the structure marks none.
DEFAULT_MAJOR_BREAK_AFTER_PLAY_MS = 60 * MS_PER_MINUTE


@dataclass(frozen=True)
class Level:
    """One blind level (R-CLOCK-1); `ante` is a big-blind ante, posted by the big blind."""

    minutes: int
    small_blind: int
    big_blind: int
    ante: int = 0

    @property
    def duration_ms(self) -> int:
        """Length of the level in milliseconds (R-CLOCK-1)."""
        return self.minutes * MS_PER_MINUTE


@dataclass(frozen=True)
class Break:
    """A break in play (R-CLOCK-1); `major` marks the break that closes registration (R-LATE-1)."""

    minutes: int
    label: str = "Break"
    colour_up: str = ""
    major: bool = False

    @property
    def duration_ms(self) -> int:
        """Length of the break in milliseconds (R-CLOCK-1)."""
        return self.minutes * MS_PER_MINUTE


Item = Level | Break
Structure = tuple[Item, ...]


class StructureError(ValueError):
    """A structure that cannot be used; `errors` lists every problem found, for the editor."""

    def __init__(self, errors: list[str]) -> None:
        super().__init__("; ".join(errors))
        self.errors = errors


def _names(structure: Structure) -> list[str]:
    """What the host calls each item: "Level 4", or "Break after level 4"."""
    names: list[str] = []
    levels = 0
    for item in structure:
        if isinstance(item, Level):
            levels += 1
            names.append(f"Level {levels}")
        elif levels:
            names.append(f"Break after level {levels}")
        else:
            names.append("Break before level 1")
    return names


def validate(structure: Structure) -> list[str]:
    """Check a structure against R-CLOCK-1; returns human messages, empty when it is fine.

    Rules: at least one level; every item lasts 1..180 minutes; small blind at least 1 and no
    more than the big blind; ante 0 or more; small blind, big blind and ante never go down from
    one level to the next; at most one major break; the last item is a level.
    """
    errors: list[str] = []
    names = _names(structure)
    previous: tuple[str, Level] | None = None
    majors: list[str] = []
    for name, item in zip(names, structure):
        if not isinstance(item, (Level, Break)):
            errors.append(f"{name}: is neither a level nor a break")
            continue
        if not MIN_MINUTES <= item.minutes <= MAX_MINUTES:
            errors.append(
                f"{name}: length must be {MIN_MINUTES} to {MAX_MINUTES} minutes, not {item.minutes}"
            )
        if isinstance(item, Break):
            if item.major:
                majors.append(name)
            continue
        if item.small_blind < 1:
            errors.append(f"{name}: small blind must be at least 1, not {item.small_blind}")
        if item.small_blind > item.big_blind:
            errors.append(f"{name}: small blind {item.small_blind} is higher than "
                          f"the big blind {item.big_blind}")
        if item.ante < 0:
            errors.append(f"{name}: ante must be 0 or more, not {item.ante}")
        if previous is not None:
            before_name, before = previous
            for label, now, then in (
                ("small blind", item.small_blind, before.small_blind),
                ("big blind", item.big_blind, before.big_blind),
                ("ante", item.ante, before.ante),
            ):
                if now < then:
                    errors.append(
                        f"{name}: {label} {now} is lower than {before_name.lower()}'s {then}"
                    )
        previous = (name, item)
    if previous is None:
        errors.insert(0, "The structure needs at least one level")
    if len(majors) > 1:
        errors.append(f"Only one break can be the major break; marked: {', '.join(majors)}")
    if structure and isinstance(structure[-1], Break):
        errors.append(f"The structure must end with a level, not a break ({names[-1]})")
    return errors


def to_json(structure: Structure) -> list[dict[str, Any]]:
    """Storage and API form of a structure (R-CLOCK-1): one dict per item, with a "kind"."""
    out: list[dict[str, Any]] = []
    for item in structure:
        if isinstance(item, Level):
            out.append({"kind": "level", "minutes": item.minutes, "small_blind": item.small_blind,
                        "big_blind": item.big_blind, "ante": item.ante})
        else:
            out.append({"kind": "break", "minutes": item.minutes, "label": item.label,
                        "colour_up": item.colour_up, "major": item.major})
    return out


_LEVEL_FIELDS = {"minutes": int, "small_blind": int, "big_blind": int, "ante": int}
_BREAK_FIELDS = {"minutes": int, "label": str, "colour_up": str, "major": bool}
_REQUIRED = {"level": {"minutes", "small_blind", "big_blind"}, "break": {"minutes"}}


def _field_error(where: str, key: str, value: Any, kind: type) -> str | None:
    # bool is a subclass of int: a JSON `true` must not pass as 1 minute.
    if kind is int and (isinstance(value, bool) or not isinstance(value, int)):
        return f"{where}: {key} must be a whole number, not {value!r}"
    if kind is not int and not isinstance(value, kind):
        wanted = "true or false" if kind is bool else "text"
        return f"{where}: {key} must be {wanted}, not {value!r}"
    return None


def from_json(data: Any, *, submitted: bool = True) -> Structure:
    """Read a structure from its stored or submitted JSON form (R-CLOCK-1).

    Raises StructureError (a ValueError) listing every problem: malformed items first; when the
    shape is right, the rule checks of validate(), so what it returns is always usable. A
    `submitted` structure (the editor's, the API's) also has at most MAX_ITEMS items and break
    labels that are plain text of a bounded length; a stored one (`submitted=False`) was
    checked when it was saved and is read as it is.
    """
    if not isinstance(data, list):
        raise StructureError([f"A structure must be a list of items, not {type(data).__name__}"])
    if submitted and len(data) > MAX_ITEMS:
        raise StructureError([f"A structure can have at most {MAX_ITEMS} levels and breaks, not {len(data)}"])
    errors: list[str] = []
    items: list[Item] = []
    for number, raw in enumerate(data, start=1):
        where = f"Item {number}"
        if not isinstance(raw, dict):
            errors.append(f"{where}: must be an object with a \"kind\", not {raw!r}")
            continue
        kind = raw.get("kind")
        if kind not in _REQUIRED:
            errors.append(f"{where}: kind must be \"level\" or \"break\", not {kind!r}")
            continue
        fields = _LEVEL_FIELDS if kind == "level" else _BREAK_FIELDS
        problems = [f"{where}: unknown field {key!r} for a {kind}"
                    for key in raw if key != "kind" and key not in fields]
        problems += [f"{where}: {key} is missing" for key in sorted(_REQUIRED[kind] - raw.keys())]
        for key, value in raw.items():
            if key in fields and (problem := _field_error(where, key, value, fields[key])):
                problems.append(problem)
        if submitted and kind == "break" and not problems:
            for key, most in (("label", MAX_LABEL_LENGTH), ("colour_up", MAX_COLOUR_UP_LENGTH)):
                if problem := text_problem(raw.get(key, ""), most, f"{where}: the {key.replace('_', '-')}"):
                    problems.append(problem)
        if problems:
            errors.extend(problems)
            continue
        values = {key: value for key, value in raw.items() if key != "kind"}
        items.append(Level(**values) if kind == "level" else Break(**values))
    if errors:
        raise StructureError(errors)
    structure = tuple(items)
    if rule_errors := validate(structure):
        raise StructureError(rule_errors)
    return structure


def play_starts_ms(structure: Structure) -> tuple[int, ...]:
    """Play time (levels only, breaks excluded) at which each item starts (R-LATE-1, R-LATE-3)."""
    starts: list[int] = []
    played = 0
    for item in structure:
        starts.append(played)
        if isinstance(item, Level):
            played += item.duration_ms
    return tuple(starts)


def major_break_index(structure: Structure) -> int | None:
    """Index of the major break (R-LATE-1, R-CHIP-2).

    The break marked major; when none is marked, the first break that starts at or after 60
    minutes of play (breaks do not count as play); None when there is no such break.
    """
    for index, item in enumerate(structure):
        if isinstance(item, Break) and item.major:
            return index
    for index, (item, start) in enumerate(zip(structure, play_starts_ms(structure))):
        if isinstance(item, Break) and start >= DEFAULT_MAJOR_BREAK_AFTER_PLAY_MS:
            return index
    return None


def _build(minutes: int, *rows: tuple[int, int] | tuple[int, int, int] | Break) -> Structure:
    """A template from (small, big[, ante]) rows of equal length, with breaks between them."""
    return tuple(row if isinstance(row, Break) else Level(minutes, *row) for row in rows)


# Templates to start an event type's structure from; the organiser edits a copy.
# Blinds begin near 1/200 of the starting stack so the first hour is real poker, breaks are where
# the smallest chip stops being needed, and the big-blind ante comes in once stacks are shallow.
TEMPLATES: dict[str, tuple[str, Structure]] = {
    # 10,000 stack; 13 x 15 min + breaks of 15 and 10 = 3 h 40 min; registration closes after 60.
    "thpa_nightly": ("THPA nightly (15-minute levels, 10,000 stack)", _build(
        15,
        (25, 50), (50, 100), (75, 150), (100, 200),
        Break(15, "Major break", "Colour up the 25 chips", major=True),
        (150, 300), (200, 400), (300, 600), (400, 800),
        Break(10, "Break", "Colour up the 100 chips"),
        (500, 1000, 1000), (1000, 2000, 2000), (1500, 3000, 3000), (2000, 4000, 4000),
        (3000, 6000, 6000),
    )),
    # 10,000 stack; 13 x 10 min + one 10-minute break = 2 h 20 min.
    "turbo": ("Turbo (10-minute levels, 10,000 stack)", _build(
        10,
        (50, 100), (100, 200), (150, 300), (200, 400), (300, 600), (400, 800),
        Break(10, "Major break", "Colour up the 50 chips", major=True),
        (500, 1000, 1000), (600, 1200, 1200), (800, 1600, 1600), (1000, 2000, 2000),
        (1500, 3000, 3000), (2000, 4000, 4000), (3000, 6000, 6000),
    )),
    # 10,000 (cash) or 6,000 (free) stacks: 25/50 starts the 6,000 stack 120 big blinds deep.
    "monthly_final": ("Monthly Final (20-minute levels, 10,000 / 6,000 stacks)", _build(
        20,
        (25, 50), (50, 100), (75, 150),
        Break(15, "Major break", "Colour up the 25 chips", major=True),
        (100, 200), (150, 300), (200, 400),
        Break(10, "Break", "Colour up the 50 chips"),
        (300, 600, 600), (400, 800, 800), (500, 1000, 1000),
        Break(10, "Break"),
        (600, 1200, 1200), (800, 1600, 1600), (1000, 2000, 2000), (1500, 3000, 3000),
        (2000, 4000, 4000),
    )),
    # 20,000 / 25,000 stacks, 200+ big blinds deep at the start.
    "highroller_final": ("High-roller Final (20-minute levels, 20,000 / 25,000 stacks)", _build(
        20,
        (50, 100), (100, 200), (150, 300),
        Break(15, "Major break", "Colour up the 50 chips", major=True),
        (200, 400), (300, 600), (400, 800, 800),
        Break(10, "Break"),
        (500, 1000, 1000), (600, 1200, 1200), (800, 1600, 1600),
        Break(10, "Break", "Colour up the 100 chips"),
        (1000, 2000, 2000), (1500, 3000, 3000), (2000, 4000, 4000), (3000, 6000, 6000),
        (4000, 8000, 8000),
    )),
    # 40,000 stacks for ten players: 200 big blinds deep, and more levels before the antes.
    "top10_shootout": ("Top-10 Shoot-out (20-minute levels, 40,000 stack)", _build(
        20,
        (100, 200), (150, 300), (200, 400),
        Break(15, "Major break", "Colour up the 50 chips", major=True),
        (300, 600), (400, 800), (500, 1000),
        Break(10, "Break"),
        (600, 1200, 1200), (800, 1600, 1600), (1000, 2000, 2000),
        Break(10, "Break", "Colour up the 100 chips"),
        (1500, 3000, 3000), (2000, 4000, 4000), (3000, 6000, 6000), (4000, 8000, 8000),
        (5000, 10000, 10000), (6000, 12000, 12000), (8000, 16000, 16000),
    )),
}


EDIT_OPS = ("up", "down", "duplicate", "remove", "add_level", "add_break")


def edit_items(items: list[dict[str, Any]], op: str, index: int) -> list[dict[str, Any]]:
    """One editor step on a structure's items in their JSON form (R-CLOCK-1), valid or not yet.

    up/down swap item `index` with its neighbour; duplicate copies it below; remove drops it;
    add_level adds, after it, a level of the same length at double its blinds (the usual next
    step, for the host to adjust); add_break adds a 10-minute break after it. Works on the raw
    form so a host can rearrange a structure that does not yet pass validate().
    """
    items = [dict(item) for item in items]
    if op not in EDIT_OPS:
        raise ValueError(f"unknown edit {op!r}")
    if not items and op not in ("add_level", "add_break"):
        raise ValueError("the structure is empty")
    if items and not 0 <= index < len(items):
        raise ValueError(f"there is no item {index + 1}")
    if op == "up" and index > 0:
        items[index - 1], items[index] = items[index], items[index - 1]
    elif op == "down" and index < len(items) - 1:
        items[index], items[index + 1] = items[index + 1], items[index]
    elif op == "duplicate":
        copy = dict(items[index])
        if copy.get("kind") == "break":
            copy["major"] = False  # at most one major break
        items.insert(index + 1, copy)
    elif op == "remove":
        del items[index]
    elif op == "add_level":
        levels = [i for i in items[: index + 1] if i.get("kind") == "level"]
        if levels:
            new = {key: (value * 2 if key != "minutes" and isinstance(value, int) else value)
                   for key, value in levels[-1].items() if key in _LEVEL_FIELDS}
        else:
            new = {"minutes": 15, "small_blind": 25, "big_blind": 50, "ante": 0}
        items.insert(index + 1, {"kind": "level", **new})
    elif op == "add_break":
        items.insert(index + 1, {"kind": "break", "minutes": 10, "label": "Break", "colour_up": "", "major": False})
    return items


# R-CLOCK-1: the template an event type's night gets when none was chosen for it.
DEFAULT_TEMPLATE = {"nightly": "thpa_nightly", "highroller": "thpa_nightly", "monthly_final": "monthly_final",
                    "highroller_final": "highroller_final", "top10_shootout": "top10_shootout"}


def default_structure(event_type: str) -> Structure:
    """The blind structure of an event type's own template (R-CLOCK-1); the nightly one for a type
    without one."""
    return TEMPLATES[DEFAULT_TEMPLATE.get(event_type, "thpa_nightly")][1]
