"""Smoke test of tests/bench/clock_load.py at a tiny scale (R-CLOCK-3): the load script's own
machinery against a real gunicorn gevent server on a fresh SQLite database, so `make test`
notices when the script breaks. No timing assertions: the figures live in
docs/benchmarks-clock.md, from full runs of the script."""
from tests.bench import clock_load


def test_every_phone_hears_every_kind_of_the_hosts_tap():
    opts = clock_load.parse_args(["--clients", "20", "--actions", "10", "--warmup", "0", "--idle", "0", "--gap", "0",
                                  "--timeout", "15", "--no-restart", "--no-heartbeat-round"])
    results = clock_load.run(opts)

    assert results["connect"]["first_message_ms"]["n"] == 20  # every stream opened with the clock
    assert results["connect"]["message_bytes"] > 0
    latency = results["latency"]
    assert latency["host_line"] == "socket"  # the default: over the host's line, as the night screen taps
    assert latency["deliveries_ms"]["n"] == 20 * 10  # run() raises unless every phone got each new version
    assert [a["action"] for a in latency["per_action"]] == list(clock_load.ACTION_CYCLE)
    assert set(latency["all_received_by_kind_ms"]) == {"pause", "resume", "next", "previous", "plus", "minus",
                                                       "shot", "shot_off", "jump"}
    assert results["lost_streams"] == 0
    files = results["first_load"]["files"]
    assert files[0]["path"].startswith("/events/") and all(f["status"] == 200 for f in files)
    assert any(f["path"].endswith("clock.js") for f in files)
    assert "latency over 200 deliveries" in clock_load.report(results)
    medians = clock_load.medians([results, results])
    assert medians["server CPU per action"]["runs"] == [latency["server_cpu_ms_per_action"]] * 2


def test_the_hosts_taps_by_post_reach_every_phone_too():
    """--host-line keep-alive and fresh: the taps as POSTs (the night screen without its line)."""
    for line in ("keep-alive", "fresh"):
        opts = clock_load.parse_args(["--clients", "5", "--actions", "4", "--warmup", "0", "--idle", "0", "--gap", "0",
                                      "--timeout", "15", "--no-restart", "--no-heartbeat-round", "--no-first-load",
                                      "--host-line", line])
        latency = clock_load.run(opts)["latency"]
        assert latency["host_line"] == line and latency["deliveries_ms"]["n"] == 5 * 4


def test_the_host_lines_client_answers_a_ping_that_comes_right_after_a_taps_answer():
    """A ping read in the same chunk as the tap's answer is answered too, as a browser answers it:
    else the server closes the line at its next ping ("Ping/Pong timeout")."""
    import asyncio

    class Written(list):
        write = list.append

    async def tap_once():
        line = clock_load.HostSocket(1, 1, "")
        line.reader, line.writer = asyncio.StreamReader(), Written()
        answer = b'{"status":200,"state":{}}'
        line.reader.feed_data(bytes([0x81, len(answer)]) + answer + bytes([0x89, 4]) + b"ping")
        status, _ = await line.tap(b"action=pause", [])
        return status, line.writer

    status, written = asyncio.run(tap_once())
    assert status == 200 and len(written) == 2  # the tap, then the pong
    pong = written[1]
    assert pong[0] == 0x8A and pong[1] == 0x80 | 4  # a masked pong of the ping's 4 bytes
    assert bytes(b ^ pong[2 + i % 4] for i, b in enumerate(pong[6:])) == b"ping"
