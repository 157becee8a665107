"""CPU-heavy work kept off a gevent worker's loop.

Under gunicorn's gevent worker every request and every live clock of the worker share one loop: a
month-end PDF (about a second of WeasyPrint) run on it stalls every phone of that worker for that
second. `apart` runs such work on one real thread of the worker's own instead; Python hands the
interpreter over every few milliseconds, so the loop keeps writing to the phones meanwhile. Outside
gevent (tests, `make dev`, the command line) it simply calls the function.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

_pool = None


def _under_gevent() -> bool:
    try:
        from gevent import monkey
    except ImportError:  # gevent is a dependency of the server, not of the rules
        return False
    return monkey.is_module_patched("threading")


def apart(work: Callable[..., Any], *args: Any) -> Any:
    """`work(*args)`'s result (or its exception); under gevent on the worker's one thread for such
    work (one at a time: two PDFs at once would only share the same cores), while the loop goes on."""
    global _pool
    if not _under_gevent():
        return work(*args)
    if _pool is None:
        from gevent.threadpool import ThreadPool
        _pool = ThreadPool(1)
    return _pool.apply(work, args)
