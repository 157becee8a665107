"""gunicorn's settings for ShuffleUp, read from the working directory: `gunicorn 'app:create_app()'`.

Flags on the command line still win (`-w`, `-b`, ...).
"""
import gc
import os
import resource
import subprocess
import sys

# The clock's live streams (server-sent events) stay open all night: a worker class that holds
# thousands of connections per process.
worker_class = "gevent"
# A phone per player on a league's busiest night, on one worker if the other is down (docs/scale.md).
worker_connections = 5000


def _open_files_for_every_phone() -> None:
    """Each phone's stream is an open socket: raise this process's soft limit on open files (1,024 on
    many Linux machines, 256 on macOS) towards the hard one, so the workers (forked from here) can hold
    worker_connections streams instead of refusing phones past the thousandth."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = worker_connections + 200  # and the database, Redis, the log files
    if hard != resource.RLIM_INFINITY:
        wanted = min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))


_open_files_for_every_phone()
graceful_timeout = 5
# Without Redis, change notices stay in one process: one worker per database. With it, one worker
# per core (docs/benchmarks-clock.md: 500 phones on 2 cores).
workers = int(os.environ.get("WEB_CONCURRENCY") or (os.cpu_count() or 1 if os.environ.get("REDIS_URL") else 1))


def post_worker_init(worker):
    """Everything loaded at boot (modules, templates, the app) lives as long as the worker: keep it
    out of the garbage collector's full passes, which otherwise stall every phone of the worker
    for 60-90 ms at a time."""
    gc.collect()
    gc.freeze()


def setup_link_command(listeners) -> list[str]:
    """The command that prints the first run's set-up link (`flask league setup-link`, which prints
    nothing once the operator exists), pointed at the address this server listens on."""
    base = str(listeners[0]) if listeners else "http://127.0.0.1:5000"
    base = base.replace("://0.0.0.0:", "://127.0.0.1:")  # bound to every address: this machine's own
    return [sys.executable, "-m", "flask", "--app", "app", "league", "setup-link", "--base-url", base]


def when_ready(server):
    """While no operator exists, print a one-time set-up link on a line of its own. In a process of its
    own, not waited for: the master imports none of the app (the gevent workers patch it after the fork)
    and serves at once; the line follows a moment later. The printer is started from a child that
    leaves at once, so it is no child of the master's: whatever counts the master's children (a process
    manager, the fault tests) finds only workers. Run from the server's directory (`chdir`): a config
    read into another one's (the benchmarks' `-c`) has no `__file__`."""
    command = setup_link_command(server.LISTENERS)
    child = os.fork()
    if child == 0:
        try:
            subprocess.Popen(command, cwd=server.cfg.chdir, start_new_session=True)
        finally:
            os._exit(0)
    os.waitpid(child, 0)
