"""Model-level guarantees: the append-only record of rulings (R-MEM-2), member names."""
import pytest

from services.models import Member, Ruling
from wiring.extensions import db


def test_r_mem_2_rulings_are_append_only(app, league):
    ruling = Ruling(league_id=league.id, kind="late_entry_override", rule_id="R-LATE-1", reason="car broke down")
    db.session.add(ruling)
    db.session.commit()
    ruling.reason = "changed my mind"
    with pytest.raises(ValueError, match="append-only"):
        db.session.commit()
    db.session.rollback()
    db.session.delete(db.session.get(Ruling, ruling.id))
    with pytest.raises(ValueError, match="append-only"):
        db.session.commit()
    db.session.rollback()
    assert db.session.get(Ruling, ruling.id).reason == "car broke down"


def test_r_mem_1_member_names_are_cleaned_and_matched(app, league):
    member = Member.named(league.id, "  Dave   O'Brien ")
    db.session.add(member)
    db.session.commit()
    assert member.name == "Dave O'Brien" and member.name_key == "dave o'brien"
    assert len(member.card_code) >= 32
    db.session.add(Member.named(league.id, "dave o'brien"))
    with pytest.raises(Exception):
        db.session.commit()
    db.session.rollback()
