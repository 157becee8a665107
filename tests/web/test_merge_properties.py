"""A property over random histories of two member records (R-MEM-1): a merge either is refused with
nothing changed (both played one night, or both hold one month's ticket) or moves every entry,
ticket and member code to the kept record; undoing it puts every row back exactly."""
import datetime as dt
import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from services import Refused, leagues, members
from services.models import Entry, Event, Member, MemberCode, Ticket, Venue, utcnow
from wiring.extensions import db

pytestmark = pytest.mark.both_databases("a merge moves rows between members under unique and foreign-key constraints")

MERGES = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
WHO = st.sampled_from(["kept", "merged", "both", "neither"])
_leagues = itertools.count()


def owners() -> dict:
    return {(model.__tablename__, row.id): row.member_id
            for model in (Entry, Ticket, MemberCode) for row in db.session.scalars(db.select(model))}


@MERGES
@given(nights=st.lists(st.tuples(WHO, st.booleans()), min_size=1, max_size=6), codes=st.integers(0, 2),
       contact=st.sampled_from([None, "0400 000 000"]))
def test_r_mem_1_a_merge_is_all_or_nothing_and_undo_restores_it(app, nights, codes, contact):
    league = leagues.create_league(f"League {next(_leagues)}", "free")
    venue = Venue(league_id=league.id, name="Rose")
    kept, merged = Member.named(league.id, "Dave O'Brien"), Member.named(league.id, "Dave OBrien")
    merged.contact = contact
    db.session.add_all([venue, kept, merged])
    db.session.flush()
    for n, (who, ticket) in enumerate(nights):
        event = Event(league_id=league.id, venue_id=venue.id, event_type="nightly", status="settled",
                      date=dt.date(2026, 1 + n, 1 + n))  # one night a month: a ticket per player per month
        db.session.add(event)
        db.session.flush()
        players = {"kept": [kept], "merged": [merged], "both": [kept, merged], "neither": []}[who]
        for place, member in enumerate(players, 1):
            db.session.add(Entry(event_id=event.id, member_id=member.id, status="played", position=place,
                                 points=100 * place))
            if ticket:
                db.session.add(Ticket(league_id=league.id, month=event.month, member_id=member.id,
                                      event_id=event.id, position=place))
    for _ in range(codes):
        db.session.add(MemberCode(member_id=merged.id, code_hash="x" * 64, expires_at=utcnow()))
    db.session.commit()
    before = owners()
    clash = any(who == "both" for who, _ in nights)
    try:
        merge = members.merge(kept, merged, None)
    except Refused as refused:
        assert clash and "both" in str(refused)
        db.session.rollback()
        assert owners() == before and merged.merged_into_id is None
        return
    assert not clash
    db.session.commit()
    ours = {key for key, owner in before.items() if owner in (kept.id, merged.id)}
    assert {owners()[key] for key in ours} <= {kept.id}
    assert kept.contact == contact and merged.merged_into_id == kept.id
    assert members.record(kept).points == sum(100 for _ in nights if _[0] != "neither")
    members.undo_merge(merge)
    db.session.commit()
    assert owners() == before and kept.contact is None and merged.merged_into_id is None
