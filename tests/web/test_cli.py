"""`flask league import-results | standings | qualifiers` as DESIGN.md specifies them."""
import json
import random

from services.models import Entry, Event, League, Member, Ticket
from wiring.extensions import db

HEADER = "date,start_time,venue,event_type,position,player,status\n"
NIGHTS = HEADER + (
    # 5 players: R-PTS-2 → 250/225/200/175/150; Fay never arrived (R-PTS-5)
    "2026-11-03,19:00,The Rose,nightly,1,Ann,\n"
    "2026-11-03,19:00,The Rose,nightly,2,Bob,\n"
    "2026-11-03,19:00,The Rose,nightly,3,Cat,\n"
    "2026-11-03,19:00,The Rose,nightly,4,Dan,\n"
    "2026-11-03,19:00,The Rose,nightly,5,Eve,\n"
    "2026-11-03,19:00,The Rose,nightly,,Fay,no_show\n"
    # 6 players (Jo disqualified 6th): 275/250/225/200/175/-; Gus and Hal tie on 2nd
    "2026-11-05,19:00,Crown,nightly,1,Ann,\n"
    "2026-11-05,19:00,Crown,nightly,2,Gus,\n"
    "2026-11-05,19:00,Crown,nightly,2,Hal,\n"
    "2026-11-05,19:00,Crown,nightly,4,Bob,\n"
    "2026-11-05,19:00,Crown,nightly,5,Ivy,\n"
    "2026-11-05,19:00,Crown,nightly,6,Jo,dq\n"
    "2026-12-01,19:00,Crown,nightly,1,Kim,\n")


def write(tmp_path, text, name="results.csv"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def invoke(runner, *args):
    return runner.invoke(args=["league", *args])


def imported(runner, tmp_path, text=NIGHTS, league="Harbour", kind="free"):
    result = invoke(runner, "import-results", write(tmp_path, text), "--league", league, "--create", "--kind", kind)
    assert result.exit_code == 0, result.output
    return result


def counts():
    return tuple(db.session.scalar(db.select(db.func.count()).select_from(model))
                 for model in (League, Member, Event, Entry, Ticket))


def test_import_creates_the_league_and_reports_what_it_did(runner, tmp_path):
    result = imported(runner, tmp_path)
    assert "Imported 13 results from 3 events into Harbour" in result.output
    assert counts() == (1, 11, 3, 13, 9)


def test_r_std_1_standings_json_has_the_design_shape(runner, tmp_path):
    imported(runner, tmp_path)
    result = invoke(runner, "standings", "--league", "Harbour", "--month", "2026-11", "--json")
    table = json.loads(result.output)["standings"]
    assert table[:4] == [
        {"rank": 1, "player": "Ann", "points": 250 + 275, "events": 2},
        {"rank": 2, "player": "Bob", "points": 225 + 200, "events": 2},
        {"rank": 3, "player": "Gus", "points": 238, "events": 1},  # (250 + 225) / 2, half up
        {"rank": 3, "player": "Hal", "points": 238, "events": 1},
    ]
    assert {"rank": 9, "player": "Jo", "points": 0, "events": 1} in table  # R-STD-1: a DQ appears with 0
    assert "Fay" not in {row["player"] for row in table}  # R-PTS-5: a no-show is not in the table


def test_r_std_2_year_standings_and_text_output(runner, tmp_path):
    imported(runner, tmp_path)
    year = json.loads(invoke(runner, "standings", "--league", "harbour", "--year", "2026", "--json").output)
    assert {"rank": 8, "player": "Kim", "points": 150, "events": 1} in year["standings"]
    text = invoke(runner, "standings", "--league", "Harbour", "--month", "2026-11").output
    assert "Ann" in text and "525" in text


def test_r_qual_qualifiers_json_has_the_design_shape(runner, tmp_path):
    imported(runner, tmp_path)
    found = json.loads(invoke(runner, "qualifiers", "--league", "Harbour", "--month", "2026-11", "--json").output)
    # R-QUAL-2: on the 5th Ann and Bob hold tickets, so they pass to Gus, Hal and Ivy; Jo (DQ) gets none
    assert [(t["player"], t["date"], t["venue"], t["position"]) for t in found["monthly_final"]] == [
        ("Ann", "2026-11-03", "The Rose", 1), ("Bob", "2026-11-03", "The Rose", 2),
        ("Cat", "2026-11-03", "The Rose", 3), ("Dan", "2026-11-03", "The Rose", 4),
        ("Eve", "2026-11-03", "The Rose", 5), ("Gus", "2026-11-05", "Crown", 2),
        ("Hal", "2026-11-05", "Crown", 2), ("Ivy", "2026-11-05", "Crown", 5)]
    assert len(found["top10_shootout"]) == 8  # R-QUAL-4: fewer than ten scorers, all qualify
    stacks = {q["player"]: q["starting_stack"] for q in found["highroller_final"]}
    assert stacks["Ann"] == 25000 and stacks["Cat"] == 20000  # R-FIN: 2+ events → 25,000


def test_cash_league_without_pass_down_does_not_pass_tickets(runner, tmp_path):
    imported(runner, tmp_path, league="Cash Kings", kind="cash")
    found = json.loads(invoke(runner, "qualifiers", "--league", "Cash Kings", "--month", "2026-11", "--json").output)
    assert [t["player"] for t in found["monthly_final"] if t["date"] == "2026-11-05"] == ["Gus", "Hal", "Ivy"]
    found_free = [t for t in found["monthly_final"]]
    assert all(t["position"] <= 5 for t in found_free)


def test_a_bad_file_imports_nothing_and_names_the_line(runner, tmp_path):
    bad = NIGHTS + "2026-11-07,19:00,Crown,nightly,1,Zed,\n2026-11-07,19:00,Crown,nightly,3,Yan,\n"
    result = invoke(runner, "import-results", write(tmp_path, bad), "--league", "Harbour", "--create", "--kind", "free")
    assert result.exit_code != 0
    assert "nothing was imported" in result.output and "line 15" in result.output
    assert counts() == (0, 0, 0, 0, 0)


def test_importing_the_same_event_twice_is_refused_unless_replaced(runner, tmp_path):
    imported(runner, tmp_path)
    before = counts()
    again = invoke(runner, "import-results", write(tmp_path, NIGHTS), "--league", "Harbour")
    assert again.exit_code != 0 and "already has results" in again.output
    assert counts() == before
    fixed = NIGHTS.replace("2026-11-03,19:00,The Rose,nightly,5,Eve,", "2026-11-03,19:00,The Rose,nightly,5,Zoe,")
    replaced = invoke(runner, "import-results", write(tmp_path, fixed), "--league", "Harbour", "--replace")
    assert replaced.exit_code == 0, replaced.output
    table = json.loads(invoke(runner, "standings", "--league", "Harbour", "--month", "2026-11", "--json").output)
    players = {row["player"] for row in table["standings"]}
    assert "Zoe" in players and "Eve" not in players


def test_an_older_night_imported_later_resettles_the_month(runner, tmp_path):
    """R-QUAL-2: events settle in date order, so an earlier night takes the tickets first."""
    imported(runner, tmp_path, text=HEADER + "".join(
        f"2026-11-10,19:00,Rose,nightly,{p},{n},\n" for p, n in enumerate("ABCDEF", 1)))
    earlier = HEADER + "".join(f"2026-11-02,19:00,Rose,nightly,{p},{n},\n" for p, n in enumerate("AXYZW", 1))
    assert invoke(runner, "import-results", write(tmp_path, earlier, "b.csv"), "--league", "Harbour").exit_code == 0
    found = json.loads(invoke(runner, "qualifiers", "--league", "Harbour", "--month", "2026-11", "--json").output)
    from_tenth = [t["player"] for t in found["monthly_final"] if t["date"] == "2026-11-10"]
    assert from_tenth == ["B", "C", "D", "E", "F"]  # A already held one from the 2nd: it passes to F


def test_shuffled_rows_give_the_same_standings(runner, tmp_path, app):
    imported(runner, tmp_path, league="One")
    lines = NIGHTS.splitlines(keepends=True)
    body = lines[1:]
    random.Random(7).shuffle(body)
    imported(runner, tmp_path, text=lines[0] + "".join(body), league="Two")
    one = json.loads(invoke(runner, "standings", "--league", "One", "--month", "2026-11", "--json").output)
    two = json.loads(invoke(runner, "standings", "--league", "Two", "--month", "2026-11", "--json").output)
    assert one == two


def test_unknown_league_and_bad_arguments_are_clear(runner, tmp_path):
    assert "no league named 'Nope'" in invoke(runner, "standings", "--league", "Nope", "--month", "2026-11").output
    assert "--create needs --kind" in invoke(runner, "import-results", write(tmp_path, NIGHTS),
                                             "--league", "New", "--create").output
    assert "add --create" in invoke(runner, "import-results", write(tmp_path, NIGHTS), "--league", "New").output
    imported(runner, tmp_path)
    assert "exactly one of" in invoke(runner, "standings", "--league", "Harbour").output
    assert "bad month" in invoke(runner, "standings", "--league", "Harbour", "--month", "2026-13").output
    assert "bad month" in invoke(runner, "qualifiers", "--league", "Harbour", "--month", "Nov").output


def test_a_file_that_is_not_utf8_is_refused(runner, tmp_path):
    path = tmp_path / "latin.csv"
    path.write_bytes((HEADER + "2026-11-03,19:00,Rose,nightly,1,Zoë,\n").encode("latin-1"))
    result = invoke(runner, "import-results", str(path), "--league", "Harbour", "--create", "--kind", "free")
    assert result.exit_code != 0 and "not UTF-8" in result.output
    assert counts() == (0, 0, 0, 0, 0)


def test_create_user_makes_a_login(runner, tmp_path):
    imported(runner, tmp_path)
    result = runner.invoke(args=["league", "create-user", "--league", "Harbour", "--username", "olive",
                                 "--role", "organiser"], input="s3cret-pass\ns3cret-pass\n")
    assert result.exit_code == 0, result.output
    from services.models import User
    user = db.session.scalar(db.select(User).where(User.username == "olive"))
    assert user.is_organiser and user.check_password("s3cret-pass") and user.password_hash != "s3cret-pass"
