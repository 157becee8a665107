"""A whole league to one file and back (services/export.py, `flask league export` / `import`): every
table of the league, an exact round trip, and a corrupted, truncated, foreign or future file refused
with its reason and nothing written."""
import datetime as dt
import io
import json

import pytest

from services import demo, export, venue_links
from services.models import (
    Action,
    BonusClaim,
    Entry,
    Event,
    HostVenue,
    Member,
    MemberCode,
    MemberMerge,
    Penalty,
    Ruling,
    SettingChange,
    User,
    utcnow,
)
from tests.conftest import make_app
from tests.fixtures.league_files import counts, exported
from tests.fixtures.league_files import with_checksum as _with_checksum
from wiring.extensions import db

pytestmark = pytest.mark.both_databases(
    "a whole league out and back in: column types, JSON columns and id sequences differ by database")


def rich_league():
    """The demo league (a month of nights, tonight running, a deal) plus a row in every other table."""
    assert demo.load_if_empty()
    tonight = db.session.scalar(db.select(Event).where(Event.status == "running"))
    host = db.session.scalar(db.select(User).where(User.role == "host"))
    entry = db.session.scalar(db.select(Entry).where(Entry.event_id == tonight.id).limit(1))
    db.session.add_all([
        BonusClaim(entry_id=entry.id, kind="food", chips=1000, user_id=host.id),
        Action(event_id=tonight.id, user_id=host.id, kind="bonus", summary="Food bonus for Ann ✓",
               changes=[["bonus_claims", 1, None]]),
        Ruling(league_id=tonight.league_id, event_id=tonight.id, user_id=host.id, kind="late_entry",
               rule_id="R-LATE-1", reason="Arrived at the break, host allowed it", detail={"b": 1, "a": [2, 3]}),
        MemberCode(member_id=entry.member_id, code_hash="0" * 64, expires_at=dt.datetime(2026, 1, 1, 12, 30, 5, 17),
                   issued_by=None),
        HostVenue(user_id=host.id, venue_id=tonight.venue_id),
        SettingChange(league_id=tonight.league_id, user_id=host.id, key="hands_per_hour", old=30, new=25),
        Penalty(event_id=tonight.id, entry_id=entry.id, member_id=entry.member_id, user_id=host.id, kind="missed_hands",
                reason="Swore at the dealer", table_no=1, seat_no=4, table_size=9, hands=3,
                until=dt.datetime(2026, 1, 1, 21, 34))])
    others = db.session.scalars(db.select(Member).where(Member.league_id == tonight.league_id,
                                                        Member.id != entry.member_id).limit(2)).all()
    db.session.add(MemberMerge(league_id=tonight.league_id, kept_id=others[0].id, merged_id=others[1].id,
                               user_id=host.id, moved={"entries": []}, undone_at=dt.datetime(2026, 1, 2, 9, 0)))
    db.session.get(Member, entry.member_id).contact = "ann@example.org"
    venue_links.replace_link(tonight.venue, venue_links.fingerprint(tonight.venue.link_code), host.id)  # a lost poster
    db.session.commit()
    return tonight.league


@pytest.fixture
def empty_app(databases, migrated_db, tmp_path):
    """A second app on an empty migrated database (for the import side)."""
    database = databases.copy(migrated_db, tmp_path)
    yield make_app(database)
    databases.drop(database)


def test_every_table_reaches_a_league():
    """A new model joins the export by pointing at the league or at a table that does; one that reaches
    none must be declared server-wide (services.export.SERVER_TABLES)."""
    assert export.unowned_tables() == []
    owned = export.owners()
    assert {"leagues", "venues", "members", "users", "events", "entries", "tickets", "rulings", "actions",
            "bonus_claims", "member_codes", "replaced_venue_links"} <= set(owned)
    assert owned["member_codes"].column.name == "member_id"  # never the nullable issued_by
    assert owned["entries"].parent == "events"


def test_export_import_export_is_the_same_file(app, empty_app):
    league = rich_league()
    first = exported(league)
    before = counts()
    assert all(before[name] > 0 for name in export.carried()), before  # every table has something to carry
    assert "push_subscriptions" in export.owners() and "push_subscriptions" not in first  # this server's only
    with empty_app.app_context():
        summary = export.import_league(io.BytesIO(first.encode()))
        db.session.commit()
        assert summary.league == league.name
        second = exported(db.session.scalar(db.select(export.League)))
        assert counts() == before
        db.session.remove()
        db.engine.dispose()
    assert second == first
    # valid JSON as a whole too, with the tables in dependency order
    data = json.loads(first)
    assert data["format"] == "shuffleup-league" and data["version"] == export.VERSION
    assert [t["table"] for t in data["tables"]][0] == "leagues"
    assert data["rows"] == sum(before.values())


def test_the_export_holds_only_this_league(app):
    league = rich_league()
    from services import leagues
    other = leagues.create_league("Other League", "cash")
    db.session.add(Member.named(other.id, "Zed Outsider"))
    db.session.commit()
    text = exported(league)
    assert "Zed Outsider" not in text and "Other League" not in text
    assert "Food bonus for Ann ✓" in text  # the journal, as written (not escaped)


def _refused(empty_app, data: bytes, reason: str):
    with empty_app.app_context():
        with pytest.raises(export.ExportFileError) as refused:
            export.import_league(io.BytesIO(data))
        db.session.rollback()
        assert reason in str(refused.value)
        assert all(n == 0 for n in counts().values())  # nothing written
        db.session.remove()
        db.engine.dispose()


def test_corrupted_truncated_foreign_and_future_files_are_refused(app, empty_app):
    league = rich_league()
    good = exported(league).encode()
    lines = good.splitlines(keepends=True)
    edited = good.replace(b"Arrived at the break", b"Arrived at the BREAK")
    _refused(empty_app, edited, "checksum does not match")
    _refused(empty_app, good[: len(good) // 2], "truncated")
    _refused(empty_app, b"".join(lines[:-1]), "truncated")
    _refused(empty_app, b"".join(lines[:5] + lines[6:]), "checksum")  # a row lost
    _refused(empty_app, good.replace(b'"version":1', b'"version":2', 1), "newer ShuffleUp")
    _refused(empty_app, good.replace(b'"shuffleup-league"', b'"other-app"', 1), "not a ShuffleUp league export")
    _refused(empty_app, b'{"hello": "world"}\n', "not a ShuffleUp league export")
    _refused(empty_app, b"date,venue,event_type,position,player\n", "not a ShuffleUp league export")
    _refused(empty_app, b"", "empty")
    _refused(empty_app, b"\xff\xfe" + good, "not a ShuffleUp league export")
    _refused(empty_app, lines[0] + b"\xff\n" + b"".join(lines[1:]), "not UTF-8")
    _refused(empty_app, lines[0] + b"garbage\n" + b"".join(lines[1:]), "line 2 is not as a ShuffleUp export")


def test_a_well_formed_file_with_bad_rows_is_refused_whole(app, empty_app):
    league = rich_league()
    lines = exported(league).encode().splitlines(keepends=True)
    unknown = [line.replace(b'"table":"rulings"', b'"table":"secrets"') for line in lines]
    _refused(empty_app, _with_checksum(unknown), "table 'secrets'")
    at = next(i for i, line in enumerate(lines) if line.startswith(b"[") and b"Arrived at the break" in line)
    wrong_type = list(lines)
    wrong_type[at] = lines[at].replace(b'"R-LATE-1"', b"17")
    _refused(empty_app, _with_checksum(wrong_type), "rulings.rule_id: expected str")
    # a row the database refuses (a venue twice, the same id) comes after the leagues were written:
    # the refusal still writes nothing
    venue_row = next(i for i, line in enumerate(lines) if line.startswith(b"[") and line.endswith(b",\n")
                     and lines[i - 1].startswith(b'{"columns"') and b'"table":"venues"' in lines[i - 1])
    clash = list(lines)
    clash[venue_row + 1: venue_row + 1] = [lines[venue_row]]
    _refused(empty_app, _with_checksum(clash), "venues")


def test_import_into_a_database_that_has_data_is_refused(app, empty_app):
    league = rich_league()
    text = exported(league).encode()
    with pytest.raises(export.ExportFileError, match="already has a league named"):
        export.import_league(io.BytesIO(text))
    db.session.rollback()
    with empty_app.app_context():
        from services import leagues
        leagues.create_league("Someone Else", "free")
        db.session.commit()
        with pytest.raises(export.ExportFileError, match="already has leagues with the file.s ids"):
            export.import_league(io.BytesIO(text))
        db.session.rollback()
        assert counts()["leagues"] == 1
        db.session.remove()
        db.engine.dispose()


def test_cli_export_and_import(app, runner, empty_app, tmp_path):
    rich_league()
    target = tmp_path / "league.json"
    result = runner.invoke(args=["league", "export", "--league", demo.LEAGUE_NAME, str(target)])
    assert result.exit_code == 0, result.output
    assert "Exported" in result.output and not (tmp_path / "league.json.partial").exists()
    assert runner.invoke(args=["league", "export", "--league", "Nope", str(tmp_path / "x.json")]).exit_code != 0
    refused = empty_app.test_cli_runner().invoke(args=["league", "import", str(tmp_path / "missing.json")])
    assert refused.exit_code != 0
    broken = tmp_path / "broken.json"
    broken.write_bytes(target.read_bytes()[:-40])
    with empty_app.app_context():
        refused = empty_app.test_cli_runner().invoke(args=["league", "import", str(broken)])
        assert refused.exit_code == 1 and "nothing was imported" in refused.output
        assert all(n == 0 for n in counts().values())
        done = empty_app.test_cli_runner().invoke(args=["league", "import", str(target)])
        assert done.exit_code == 0, done.output
        again = tmp_path / "again.json"
        assert empty_app.test_cli_runner().invoke(
            args=["league", "export", "--league", demo.LEAGUE_NAME, str(again)]).exit_code == 0
        assert again.read_bytes() == target.read_bytes()
        # the imported logins work: the organiser's password, as exported
        organiser = db.session.scalar(db.select(User).where(User.role == "organiser"))
        assert organiser.check_password(demo.ORGANISER[1])
        assert db.session.scalar(db.select(Member).where(Member.contact == "ann@example.org")) is not None
        db.session.remove()
        db.engine.dispose()


def test_utc_timestamps_survive(app, empty_app):
    league = rich_league()
    stamp = utcnow()
    db.session.add(Ruling(league_id=league.id, kind="note", reason="micro", at=stamp))
    db.session.commit()
    text = exported(league)
    with empty_app.app_context():
        export.import_league(io.BytesIO(text.encode()))
        db.session.commit()
        assert db.session.scalar(db.select(Ruling.at).where(Ruling.reason == "micro")) == stamp
        db.session.remove()
        db.engine.dispose()


def test_a_new_table_joins_the_export_with_no_code(app, empty_app):
    """As another branch's tables will (host venues, penalties): found by their foreign keys, a
    composite primary key included, and carried through the round trip."""
    import sqlalchemy as sa
    host_venues = sa.Table("test_host_venues", db.metadata,
                           sa.Column("user_id", sa.ForeignKey("users.id"), primary_key=True),
                           sa.Column("venue_id", sa.ForeignKey("venues.id"), primary_key=True))
    penalties = sa.Table("test_penalties", db.metadata, sa.Column("id", sa.Integer, primary_key=True),
                         sa.Column("entry_id", sa.ForeignKey("entries.id"), nullable=False),
                         sa.Column("minutes", sa.Integer, nullable=False), sa.Column("at", sa.DateTime))
    try:
        league = rich_league()
        for table in (host_venues, penalties):
            table.create(db.engine)
        host = db.session.scalar(db.select(User).where(User.role == "host"))
        venue = db.session.scalar(db.select(export.owners()["venues"].table.c.id).limit(1))
        entry = db.session.scalar(db.select(Entry.id).limit(1))
        db.session.execute(host_venues.insert(), [{"user_id": host.id, "venue_id": venue}])
        db.session.execute(penalties.insert(), [{"entry_id": entry, "minutes": 3, "at": utcnow()}])
        db.session.commit()
        owned = export.owners()
        assert owned["test_penalties"].parent == "entries" and owned["test_host_venues"].parent == "users"
        first = exported(league)
        assert '{"columns":["user_id","venue_id"],"table":"test_host_venues"' in first
        with empty_app.app_context():
            for table in (host_venues, penalties):
                table.create(db.engine)
            summary = export.import_league(io.BytesIO(first.encode()))
            db.session.commit()
            assert summary.rows["test_host_venues"] == 1 and summary.rows["test_penalties"] == 1
            assert exported(db.session.scalar(db.select(export.League))) == first
            db.session.remove()
            db.engine.dispose()
    finally:
        db.metadata.remove(penalties)
        db.metadata.remove(host_venues)


@pytest.mark.parametrize("batch", [1, 2, 3, 7])
def test_batches_of_any_size_give_the_same_file(app, empty_app, monkeypatch, batch):
    """Rows are read, written and imported in batches: where a batch ends changes nothing in the file."""
    league = rich_league()
    whole = exported(league)
    monkeypatch.setattr(export, "BATCH", batch)
    assert exported(league) == whole
    with empty_app.app_context():
        export.import_league(io.BytesIO(whole.encode()))
        db.session.commit()
        assert exported(db.session.scalar(db.select(export.League))) == whole
        db.session.remove()
        db.engine.dispose()
