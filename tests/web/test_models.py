"""Model-level guarantees: the append-only record of rulings (R-MEM-2), member names."""
import pytest
from sqlalchemy.exc import IntegrityError

from services.models import Member, Ruling
from wiring.extensions import db

pytestmark = pytest.mark.both_databases(
    "the database's own CHECK, UNIQUE and foreign-key constraints refuse what the models let through")


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
    with pytest.raises(IntegrityError):
        db.session.commit()
    db.session.rollback()



@pytest.mark.parametrize(("table", "column", "word"), [
    ("events", "status", "finished"), ("events", "deal_status", "maybe"), ("events", "deal_method", "coin_flip"),
    ("entries", "status", "busted"), ("leagues", "kind", "both"), ("users", "role", "admin")])
def test_the_database_refuses_a_status_outside_the_vocabulary(night, table, column, word):
    """league/statuses.py is the vocabulary; the migrations' CHECK constraints hold the database to it."""
    from services.models import Entry
    member = Member.named(night.league_id, "Ann")
    db.session.add(member)
    db.session.flush()
    db.session.add(Entry(event_id=night.id, member_id=member.id))
    db.session.commit()
    row_id = db.session.execute(db.text(f"SELECT min(id) FROM {table}")).scalar_one()
    with pytest.raises(IntegrityError, match=f"ck_{table}_{column}"):
        db.session.execute(db.text(f"UPDATE {table} SET {column} = :word WHERE id = :id"), {"word": word, "id": row_id})
    db.session.rollback()
    assert db.session.execute(db.text(f"SELECT {column} FROM {table} WHERE id = :id"), {"id": row_id}).scalar() != word
