"""Smoke test of tests/bench/night_load.py at a tiny scale: a whole night driven through
the real login and roster forms against a real gunicorn gevent server on a fresh SQLite database,
with a few phones on the clock stream, so `make test` notices when the script (or the host's flow it
drives) breaks. No timing assertions: the figures live in docs/benchmarks.md, from full runs."""
from tests.bench import night_load

KINDS = {"walk-in", "phone check-in (player)", "confirm", "bonus", "draw", "clock start", "late entrant", "bust",
         "bust hand", "move", "break", "dq", "undo", "final table", "settle", "member search (GET)",
         "roster refresh (GET)", "final check-in", "final check-in refused", "final check-in override",
         "food/drink for everyone", "penalty given", "penalty ended", "re-entry", "deal", "ballot page (GET)",
         "ballot vote (passed phone)", "deal ballot (own phone, GET)", "deal vote (own phone)", "rebuy"}


def test_a_whole_night_through_the_hosts_forms():
    opts = night_load.parse_args(["--players", "12", "--late", "3", "--max-seats", "4", "--phones", "5",
                                  "--phone-checkins", "4", "--draws", "2", "--finals", "2", "--settles", "2",
                                  "--undo-every", "3", "--dq-every", "7", "--hand-every", "4", "--refresh-every", "5",
                                  "--gap", "0", "--timeout", "15", "--seat-seed", "7", "--final-checkins", "4",
                                  "--everyone", "2", "--penalties", "2", "--reentries", "2", "--votes", "3",
                                  "--rebuys", "2", "--min-samples", "2"])
    results = night_load.run(opts)

    assert results["failures"] == []
    samples = results["samples"]
    assert {s["kind"] for s in samples} == KINDS  # every kind of host action was taken
    for sample in samples:  # and answered as the host's phone expects
        expected = {"phone check-in (player)": 303, "final check-in refused": 422,
                    "ballot vote (passed phone)": 303, "deal vote (own phone)": 303}.get(sample["kind"], 200)
        assert sample["ok"] and sample["status"] == expected, sample
        assert sample["html_bytes"] > 0 and sample["ms"] > 0
    undone = {s.get("undid") for s in samples if s["kind"] == "undo"}
    assert {"draw", "late entrant", "final table", "settle"} <= undone
    figures = results["figures"]
    assert figures["walk-in"]["n"] + figures["phone check-in (player)"]["n"] == 12
    assert figures["late entrant"]["n"] >= 3 and figures["settle"]["n"] == 2
    # every change moved the clock's version on by one, undo included, and the phones heard the last
    assert results["clock_version"]["api"] == results["clock_version"]["expected"]
    assert results["phones_stats"]["lost_streams"] == 0 and results["phones_caught_up"] == 5
    # the night ended settled: the roster lists all 15 out, the winner first
    assert results["roster_final"]["status"] == 200 and results["roster_final"]["out"] == 15
    # R-QUAL-3: two of tonight's ticket holders admitted, two others refused, then let in by the override
    assert results["night"]["final_checkins"] == 4 and results["night"]["final_ticket_holders"] == 2
    assert figures["final check-in refused"]["n"] == figures["final check-in override"]["n"] == 2
    # every host action timed inside the server too (the report's server-time table), refusals apart
    server = results["profile"]
    assert {k for k in KINDS if not k.startswith("phone")} - {"undo"} <= set(server), set(server)
    assert server["settle"]["n"] == 2 and server["final check-in refused"]["n"] == 2
    assert server["penalty given"]["n"] == server["penalty ended"]["n"] == 2 and server["rebuy"]["n"] == 2
    assert server["food/drink for everyone"]["n"] == 2 and server["re-entry"]["n"] == 2
    # R-PAY-2: each vote on the player's own phone if they checked in on it, else on the passed phone
    assert server["ballot vote (passed phone)"]["n"] + server["deal vote (own phone)"]["n"] >= 3
    text = night_load.report(results)
    assert "all host actions (POST)" in text and "| settle | 2 |" in text and "load average (1/5/15 min)" in text
    assert "settle: median" in text
