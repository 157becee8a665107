"""Finishing positions in the database (R-PTS-5..7, R-LATE-2, R-LATE-3): the night's field and
elimination record read from its entries, handed to league.finishing, and every entry's position
written back. The one place a position is decided: bust-outs, disqualifications, check-ins, no-shows,
deals and settling all end by calling `place`.

How the record is read from the entries (no column of its own):
- The field is every entry that took a seat: playing, played or disqualified (league.statuses.FIELD).
  Pre-registered players not arrived, arrivals not yet confirmed and no-shows are not in it.
- Bust-outs in one hand share `Entry.bust_hand`, with each one's `stack_at_bust` (R-PTS-6); those out in
  one hand-for-hand hand, at any table, share it too and have its number in `Entry.hfh_hand`: they all
  share the places they cover, whatever their stacks (R-HFH-3); a
  disqualification takes a `bust_hand` number of its own, so it sits in the same order (R-PTS-5).
  Numbers only grow through a night (`next_step`), so their order is the order of elimination.
  A re-entry (R-ENTRY-2, services.reentries) clears the player's `bust_hand`: their earlier bust-out
  leaves the record, and they finish once, from their last entry.
- An agreed deal (R-PTS-7) is the chip count (`chips_at_deal`) of the players it placed: those
  still in when it was agreed, so never a player who busted or was disqualified.
- Entries recorded before disqualifications had a number (a disqualified player, or anyone out
  with a position but no `bust_hand`) keep their place in the order by the position they were
  given, as well as it can be read from it: after the numbered steps that finished worse or the
  same, before those that finished better; players out with one such position shared it, and share
  again. A player out with no number and no position but 1st is the winner.
"""
from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from league.finishing import Disqualification, Finishing, Hand, Step, finishing_positions
from league.hand_for_hand import shared_hand
from league.statuses import FIELD, PARTICIPANT_STATUSES, EntryStatus
from services import Refused
from services.journal import Journal
from services.models import Entry, Event
from services.night_snapshot import dealt

if TYPE_CHECKING:
    from services.night_snapshot import NightSnapshot


class _Names(Mapping):
    """Entry id -> member name for league.finishing's messages, read only when a message needs one
    (a night of 200 would otherwise load 200 members on every host action)."""

    def __init__(self, entries: Mapping[int, Entry]):
        self._entries = entries

    def __getitem__(self, key: int) -> str:
        return self._entries[key].member.name

    def __iter__(self) -> Iterator[int]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)


@dataclass(frozen=True)
class Record:
    """What league.finishing needs, read from the night's entries."""

    field: tuple[int, ...]
    steps: tuple[Step, ...]
    deal: dict[int, int] | None


def record_of(event: Event, entries: list[Entry]) -> Record:
    """The field, the elimination record in order, and the deal, from the night's entries."""
    field = tuple(e.id for e in entries if e.status in FIELD)
    deal = dealt(event, entries)
    numbered: dict[tuple[int, int], list[Entry]] = {}  # (bust_hand, entry id for a DQ, else 0)
    unnumbered: dict[tuple[int, int], list[Entry]] = {}  # (stored position, entry id for a DQ, else 0)
    for entry in entries:
        if entry.status not in PARTICIPANT_STATUSES or entry.id in deal:
            continue
        dq = entry.status == EntryStatus.DQ
        if entry.bust_hand is not None:
            numbered.setdefault((entry.bust_hand, entry.id if dq else 0), []).append(entry)
        elif dq or (entry.position or 1) > 1:  # not the winner
            unnumbered.setdefault((entry.position or 0, entry.id if dq else 0), []).append(entry)

    def step(group: list[Entry], shared: bool = False) -> Step:
        # `shared`: players given one position before steps had numbers; they share it again.
        if group[0].status == EntryStatus.DQ:
            return Disqualification(group[0].id)
        if len(group) == 1:
            return Hand.alone(group[0].id, group[0].stack_at_bust)
        if shared or group[0].hfh_hand is not None:  # R-HFH-3: a hand-for-hand hand's players all share
            return shared_hand([e.id for e in group])
        return Hand({e.id: e.stack_at_bust for e in group})

    older = sorted(unnumbered.items(), key=lambda item: (-item[0][0], item[0][1]))  # worst position first
    steps: list[Step] = []
    for _, group in sorted(numbered.items()):
        # An unnumbered step goes before the first numbered one that finished better than it did;
        # a step not placed yet (the one this action adds) is newer than all of them.
        stored = [e.position for e in group if e.position is not None]
        while older and (not stored or older[0][0][0] > max(stored)):
            steps.append(step(older.pop(0)[1], shared=True))
        steps.append(step(group))
    steps += [step(group, shared=True) for _, group in older]
    return Record(field, tuple(steps), deal or None)


def finishing(night: NightSnapshot) -> Finishing:
    """R-PTS-5..7: the night's finishing positions as its record stands. Refused (in words for the
    host's phone) when the record can't be placed."""
    event, entries = night.event, night.entries
    by_id = {e.id: e for e in entries}
    record = record_of(event, entries)
    if record.deal is not None:
        late = [e for e in entries if e.status == EntryStatus.PLAYING and e.id not in record.deal]
        if late:
            raise Refused(f"{late[0].member.name} can't come into the game now: the final table has agreed a "
                          "deal, and its chip count fixed every place.")
    try:
        return finishing_positions(record.field, record.steps, record.deal, names=_Names(by_id))
    except ValueError as problem:
        raise Refused(_sentence(str(problem))) from None


def place(night: NightSnapshot, journal: Journal) -> Finishing:
    """R-PTS-5..7: derive every finishing position from the field as it stands and write each entry's
    `position` where it changed (noted in the journal first, so Undo puts it back). Players still in,
    and anyone not in the field, have none. Called after every change to the field or the record."""
    result = finishing(night)
    for entry in night.entries:
        position = result.positions.get(entry.id) if entry.status in PARTICIPANT_STATUSES else None
        if entry.position != position:
            journal.touch(entry)
            entry.position = position
    return result


def _sentence(text: str) -> str:
    return text if text.endswith((".", "!", "?")) else text + "."
