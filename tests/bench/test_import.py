"""Importing a results file (target: 10,000 rows parsed, imported and committed in <= 3 s)."""
import os
import shutil

from league.results_file import parse_results
from services import leagues, results
from services.models import Entry, Ticket
from tests.bench import history
from wiring.extensions import db


def test_import_results(benchmark, app, db_path, tmp_path):
    text = history.results_file(history.SCALE.import_rows)
    template = tmp_path / "template.db"
    db.session.remove()
    db.engine.dispose()
    shutil.copy(db_path, template)

    def empty_league():
        """A fresh copy of the migrated database (not timed) with an empty league."""
        db.session.remove()
        db.engine.dispose()
        for suffix in ("-wal", "-shm"):
            if os.path.exists(f"{db_path}{suffix}"):
                os.remove(f"{db_path}{suffix}")
        shutil.copy(template, db_path)
        league = leagues.create_league("Import League", "free")
        db.session.commit()
        return (league,), {}

    def import_file(league):
        summary = results.import_results(league, parse_results(text))
        db.session.commit()
        return summary

    rounds = 5 if history.FULL else 1
    summary = benchmark.pedantic(import_file, setup=empty_league, rounds=rounds, warmup_rounds=0)
    assert summary.results == history.SCALE.import_rows == text.count("\n") - 1
    assert db.session.scalar(db.select(db.func.count()).select_from(Entry)) == history.SCALE.import_rows
    assert db.session.scalar(db.select(db.func.count()).select_from(Ticket)) >= 5 * len(summary.months)
    assert db.session.scalar(db.select(db.func.sum(Entry.points))) > 0
