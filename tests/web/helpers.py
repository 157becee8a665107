"""Seeding helpers for web tests: results go in through the real parser and records."""
from league.results_file import parse_results
from services import results
from wiring.extensions import db

HEADER = "date,start_time,venue,event_type,position,player,status\n"


def seed_results(league, rows):
    """Import (date, venue, position, player[, status]) rows as nightly results and commit."""
    lines = []
    for row in rows:
        date, venue, position, player, *status = row
        name = '"' + player.replace('"', '""') + '"'
        lines.append(f"{date},19:00,{venue},nightly,{position if position else ''},{name},{status[0] if status else ''}\n")
    summary = results.import_results(league, parse_results(HEADER + "".join(lines)))
    db.session.commit()
    return summary


def five_player_night(date, venue, names):
    """A night of len(names) players finishing in the order given."""
    return [(date, venue, p, n) for p, n in enumerate(names, 1)]
