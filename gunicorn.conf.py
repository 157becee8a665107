"""gunicorn's settings for ShuffleUp, read from the working directory: `gunicorn 'app:create_app()'`.

Flags on the command line still win (`-w`, `-b`, ...).
"""
import gc
import os

# The clock's live streams (server-sent events) stay open all night: a worker class that holds
# thousands of connections per process.
worker_class = "gevent"
worker_connections = 2000
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
