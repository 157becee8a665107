"""`flask --app app league …`: import results, query standings and qualifiers (as text, or as the
same JSON the league's API serves), and export or import a whole league."""
import json
import os
import time

import click
from flask import current_app
from flask.cli import AppGroup
from sqlalchemy import inspect, text
from sqlalchemy.exc import IntegrityError

from league.logins import username_key, username_problem
from league.results_file import ResultsFileError, parse_results
from league.statuses import LeagueKind, Role, values
from services import Refused, finals, leagues, logins, results, standings
from wiring.extensions import db

league_cli = AppGroup("league", help="Import results and query a league's standings and qualifiers.")


def _league(name: str):
    league = leagues.find_league(name)
    if league is None:
        raise click.ClickException(f"no league named {name!r} (import with --create --kind free|cash to make one)")
    return league


@league_cli.command("import-results")
@click.argument("file", type=click.File("r", encoding="utf-8-sig"))
@click.option("--league", "league_name", required=True, help="The league's name.")
@click.option("--create", is_flag=True, help="Create the league if it does not exist.")
@click.option("--kind", type=click.Choice(values(LeagueKind)), help="The new league's kind (with --create).")
@click.option("--replace", is_flag=True, help="Overwrite events that already have results.")
def import_results_command(file, league_name, create, kind, replace):
    """Import past results from FILE.csv, all or nothing (R-PTS, then R-QUAL for each month)."""
    try:
        events = parse_results(file.read())
        league = leagues.find_league(league_name)
        if league is None:
            if not create:
                raise click.ClickException(f"no league named {league_name!r}: add --create --kind free|cash")
            if kind is None:
                raise click.ClickException("--create needs --kind free or --kind cash")
            league = leagues.create_league(league_name, kind)
        summary = results.import_results(league, events, replace=replace)
    except ResultsFileError as rejected:
        db.session.rollback()
        raise click.ClickException("the file was rejected; nothing was imported:\n" + str(rejected)) from None
    except UnicodeDecodeError:
        db.session.rollback()
        raise click.ClickException("the file is not UTF-8 text; nothing was imported") from None
    except click.ClickException:
        db.session.rollback()
        raise
    db.session.commit()
    click.echo(f"Imported {summary.results} results from {summary.events} events into {league.name} "
               f"({summary.new_members} new members, {summary.new_venues} new venues; "
               f"months settled: {', '.join(summary.months)}).")


@league_cli.command("standings")
@click.option("--league", "league_name", required=True)
@click.option("--month", help="YYYY-MM")
@click.option("--year", help="YYYY")
@click.option("--json", "as_json", is_flag=True,
              help="Print JSON, as /api/leagues/<league>/standings serves it: standings, a list of each "
                   "player's rank, name, points and events.")
def standings_command(league_name, month, year, as_json):
    """Print the monthly (R-STD-1) or season (R-STD-2) table."""
    if bool(month) == bool(year):
        raise click.UsageError("give exactly one of --month YYYY-MM or --year YYYY")
    league = _league(league_name)
    try:
        table = standings.month_standings(league, month) if month else standings.year_standings(league, year)
    except ValueError as problem:
        raise click.BadParameter(str(problem)) from None
    if as_json:
        click.echo(json.dumps(standings.standings_json(table), indent=2))
        return
    click.echo(f"{league.name} — {month or year}")
    for row in table:
        click.echo(f"{row.rank:>4}  {row.player:<30} {row.points:>6}  {row.events:>3} events")


@league_cli.command("qualifiers")
@click.option("--league", "league_name", required=True)
@click.option("--month", required=True, help="YYYY-MM")
@click.option("--json", "as_json", is_flag=True,
              help="Print JSON, as /api/leagues/<league>/qualifiers serves it: monthly_final, top10_shootout "
                   "and highroller_final, each a list of players.")
def qualifiers_command(league_name, month, as_json):
    """Print the month's Monthly Final tickets, Top-10 Shoot-out and High-roller Final entrants (R-QUAL, R-FIN)."""
    league = _league(league_name)
    try:
        found = finals.qualifiers(league, month)
    except ValueError as problem:
        raise click.BadParameter(str(problem)) from None
    if as_json:
        click.echo(json.dumps(found, indent=2))
        return
    click.echo(f"{league.name} — {month}\nMonthly Final tickets:")
    for t in found["monthly_final"]:
        click.echo(f"  {t['player']:<30} {t['date']} {t['start_time'] or '':<5}  {t['venue']}  #{t['position']}")
    click.echo("Top-10 Shoot-out:")
    for q in found["top10_shootout"]:
        click.echo(f"  {q['player']:<30} {q['points']:>6}")
    click.echo("High-roller Final:")
    for q in found["highroller_final"]:
        click.echo(f"  {q['player']:<30} {q['events']:>3} events  {q['starting_stack']:>6} chips")


@league_cli.command("demo")
def demo_command():
    """Load the demo league (a month of nights and tonight's game) into an empty database."""
    from services import demo
    if demo.load_if_empty():
        click.echo("Loaded the demo league. Organiser login: organiser / organiser-demo; host: host / host-demo.")
    else:
        click.echo("The database already has a league: demo not loaded.")


def _commit_or_refuse(make):
    """Run `make` (which may raise Refused) and commit; a refusal or a race on a unique name writes nothing."""
    try:
        made = make()
        db.session.commit()
    except Refused as refused:
        db.session.rollback()
        raise click.ClickException(f"{refused} Nothing was created.") from None
    except IntegrityError:  # taken between the check and the write
        db.session.rollback()
        raise click.ClickException("that name was taken a moment ago: choose another; nothing was created") from None
    return made


@league_cli.command("create-user")
@click.option("--league", "league_name", required=True)
@click.option("--username", required=True)
@click.option("--role", type=click.Choice((Role.ORGANISER.value, Role.HOST.value)), required=True)
@click.password_option()
def create_user_command(league_name, username, role, password):
    """Create an organiser or host login (usernames are one name whatever their case)."""
    league = _league(league_name)
    user = _commit_or_refuse(lambda: logins.new_login(username, username.strip(), role, league, password=password))
    click.echo(f"Created {role} {user.username}.")


@league_cli.command("create-league")
@click.argument("name")
@click.option("--kind", type=click.Choice(values(LeagueKind)), required=True, help="Free to play or cash.")
@click.option("--timezone", default="Australia/Sydney", show_default=True, help="The venues' time zone (IANA).")
@click.option("--organiser", "organiser", help="The first organiser's username: prints their one-time password link.")
@click.option("--base-url", default="http://127.0.0.1:5000", show_default=True, help="Where the link points.")
def create_league_command(name, kind, timezone, organiser, base_url):
    """Start a league with THPA's default settings (R-QUAL-2: free leagues pass down), as the operator's page does."""
    def make():
        league = leagues.start_league(name, kind, timezone)
        token = None
        if organiser:
            user = logins.new_login(organiser, organiser.strip(), Role.ORGANISER, league)
            token = logins.issue_password_link(user, None)
        return league, token
    league, token = _commit_or_refuse(make)
    click.echo(f"Started {league.name} ({league.kind}, {league.timezone}).")
    if token:
        click.echo(f"Hand this to its organiser (one use, 24 hours): {base_url.rstrip('/')}/password/{token}")


@league_cli.command("create-operator")
@click.option("--username", required=True)
@click.password_option()
def create_operator_command(username, password):
    """Create this ShuffleUp's operator login (who starts leagues and gives organisers their logins)."""
    user = _commit_or_refuse(lambda: logins.new_login(username, username.strip(), Role.OPERATOR, None,
                                                      password=password))
    click.echo(f"Created the operator {user.username}: log in at /login.")


@league_cli.command("setup-link")
@click.option("--base-url", default="http://127.0.0.1:5000", show_default=True, help="Where the link points.")
def setup_link_command(base_url):
    """While no operator exists, print a new one-time set-up link (the older one dies); else nothing."""
    token = logins.issue_setup_link()
    db.session.commit()
    if token:
        click.echo(logins.setup_url(base_url, token))


@league_cli.command("rename-login")
@click.argument("old")
@click.argument("new")
def rename_login_command(old, new):
    """Rename a login (also before the upgrade that makes usernames one name whatever their case, when two
    differ only in case: written in plain SQL, so it works on that older schema too)."""
    if problem := username_problem(new):
        raise click.ClickException(problem)
    taken = db.session.execute(text("SELECT id FROM users WHERE lower(username) = :new"), {"new": new.lower()}).first()
    if taken:
        raise click.ClickException(f"the username {new!r} is taken (in some case): choose another")
    if not db.session.execute(text("UPDATE users SET username = :new WHERE username = :old"),
                              {"new": new, "old": old}).rowcount:
        raise click.ClickException(f"no login named exactly {old!r}")
    if "username_key" in {c["name"] for c in inspect(db.engine).get_columns("users")}:
        db.session.execute(text("UPDATE users SET username_key = :key WHERE username = :new"),
                           {"key": username_key(new), "new": new})
    db.session.commit()
    click.echo(f"Renamed {old} to {new}.")


# ---- A whole league to one file and back (services/export.py) ----

@league_cli.command("export")
@click.option("--league", "league_name", required=True, help="The league's name.")
@click.argument("file", type=click.Path(dir_okay=False))
def export_command(league_name, file):
    """Write every table of the league (settings, venues, members, nights, entries, tickets, rulings,
    the journal) to FILE as versioned JSON; FILE appears only when the whole export is written."""
    from services import export
    league = _league(league_name)
    partial = f"{file}.partial"
    try:
        with open(partial, "w", encoding="utf-8", newline="\n") as out:
            rows = export.export_league(league, out)
        os.replace(partial, file)
    except OSError as problem:
        raise click.ClickException(f"could not write {file}: {problem.strerror}") from None
    finally:
        if os.path.exists(partial):
            os.remove(partial)
    click.echo(f"Exported {league.name}: {rows} rows to {file}.")


@league_cli.command("import")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
def import_command(file):
    """Import a league file made by `flask league export`, all or nothing, into a database whose rows
    do not share its ids (a new one, or one with only its operator and leagues made since)."""
    from services import Refused, export
    try:
        with open(file, "rb") as source:
            summary = export.import_league(source)
        db.session.commit()
    except Refused as refused:
        db.session.rollback()
        raise click.ClickException(f"the file was refused; nothing was imported: {refused}") from None
    except BaseException:
        db.session.rollback()
        raise
    click.echo(f"Imported {summary.league}: {sum(summary.rows.values())} rows in {len(summary.rows)} tables.")


# --- backup and restore (README "Running it for real", docs/deploy.md) ---------------------------

def _known_revisions() -> set[str]:
    """Every migration revision this code has (a backup's schema must be one of them)."""
    from alembic.script import ScriptDirectory
    from flask import current_app
    config = current_app.extensions["migrate"].migrate.get_config()
    return {script.revision for script in ScriptDirectory.from_config(config).walk_revisions()}


@league_cli.command("backup")
@click.argument("file", type=click.Path(dir_okay=False))
def backup_command(file):
    """Write a backup of the whole league to FILE while the app keeps running: SQLite's online
    backup (a consistent copy, writers not held up) or pg_dump's custom format on PostgreSQL."""
    from services import backup
    db.session.remove()
    try:
        backup.backup(db.engine, file)
    except backup.BackupError as problem:
        raise click.ClickException(f"{problem}; no backup was written") from None
    click.echo(f"Backed up the {backup.kind_of(db.engine)} database to {file}.")


@league_cli.command("restore")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("--replace", is_flag=True, help="Overwrite a database that already holds a league.")
def restore_command(file, replace):
    """Restore the league from a backup FILE (made by `league backup`): the file is checked first,
    and a database that already holds anything is refused without --replace. Stop the app first."""
    from services import backup
    db.session.remove()
    try:
        found = backup.restore(db.engine, file, _known_revisions(), replace=replace)
    except backup.BackupError as problem:
        raise click.ClickException(f"{problem}; nothing was restored") from None
    click.echo(f"Restored {file} (schema {found.revision}). Run `flask --app app db upgrade` "
               "before serving if this version is newer than the backup.")


# --- end of backup and restore -------------------------------------------------------------------


@league_cli.command("push-sender")
def push_sender_command():
    """Web Push: send the messages every web process queues in Redis (REDIS_URL), until stopped. With
    SHUFFLEUP_PUSH_SEND_HERE=false on the web processes, this process alone encrypts and posts."""
    sender = current_app.extensions["push"]
    if sender.shared is None:
        raise click.ClickException("The push sender needs REDIS_URL: without it each web process sends its own.")
    sender.serve()
    click.echo(f"Sending Web Push messages queued in Redis under {current_app.config['PUSH_REDIS_PREFIX']}:* "
               "(Ctrl-C stops)")
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass


def init_app(app) -> None:
    """Register the `league` command group."""
    app.cli.add_command(league_cli)
