"""Web Push messages waiting in Redis, so any process can send them and a restart loses none.

Two keys under the prefix (PUSH_REDIS_PREFIX): `<prefix>:ready`, a list of messages due now, and
`<prefix>:later`, a sorted set of messages due later scored by their due time (epoch seconds). A
process claims one with a script that first moves whatever has fallen due from the set to the list and
then pops the list's oldest, in one step on the Redis server: two processes never claim one message.

Redis unreachable: `put` says so (False) and the caller sends from its own process instead; the host's
action never waits longer than PUSH_REDIS_TIMEOUT_S for it, and for PUSH_REDIS_RETRY_S after a failure
Redis is not tried at all (a host tapping during an outage pays the timeout once, not every tap).
"""
from __future__ import annotations

import json
import logging
import threading
import time
import uuid
from collections.abc import Mapping
from typing import Any

log = logging.getLogger(__name__)
PREFIX = "shuffleup:push"
TIMEOUT_S = 0.5
RETRY_S = 10.0
MOVE_AT_ONCE = 100  # messages moved from due-later to ready by one claim
BLOCK_S = 0.25  # an idle pump's wait on the ready list: a message due later goes within this of its time

# KEYS: later, ready. ARGV: now, how many to move. Moves what is due, then pops the oldest ready.
_CLAIM = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
for _, message in ipairs(due) do
  redis.call('ZREM', KEYS[1], message)
  redis.call('LPUSH', KEYS[2], message)
end
return redis.call('RPOP', KEYS[2])
"""


class RedisQueue:
    """The shared queue of one app's push messages (see the module's note)."""

    def __init__(self, url: str, prefix: str = PREFIX, timeout_s: float = TIMEOUT_S, retry_s: float = RETRY_S) -> None:
        import redis
        self._redis = redis.Redis.from_url(url, socket_timeout=timeout_s, socket_connect_timeout=timeout_s)
        # The pump's own connection: it waits on the ready list up to BLOCK_S at a time.
        self._waiting = redis.Redis.from_url(url, socket_timeout=timeout_s + BLOCK_S,
                                             socket_connect_timeout=timeout_s)
        self.ready, self.later = f"{prefix}:ready", f"{prefix}:later"
        self._claim = self._redis.register_script(_CLAIM)
        self._retry_s = retry_s
        self._down_until = 0.0
        self._down = False
        self._lock = threading.Lock()

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> RedisQueue | None:
        """The app's shared queue when REDIS_URL is set (None: each process keeps its own)."""
        url = config.get("REDIS_URL")
        if not url:
            return None
        return cls(url, config.get("PUSH_REDIS_PREFIX", PREFIX), config.get("PUSH_REDIS_TIMEOUT_S", TIMEOUT_S),
                   config.get("PUSH_REDIS_RETRY_S", RETRY_S))

    def up(self) -> bool:
        """Not known to be down (a failure in the last PUSH_REDIS_RETRY_S seconds)."""
        return time.time() >= self._down_until

    def _failed(self, what: str) -> None:
        with self._lock:
            first, self._down = not self._down, True
            self._down_until = time.time() + self._retry_s
        if first:  # once an outage, not at every retry
            log.warning("push: Redis unreachable (%s): sending from this process", what, exc_info=True)

    def _reached(self) -> None:
        if self._down:
            self._down = False
            log.info("push: Redis reachable again: queueing there")

    def put(self, timed: list[tuple[dict, float]]) -> bool:
        """Queue (message, due at) pairs in one round trip; False (nothing queued) when Redis is down."""
        if not self.up():
            return False
        import redis
        now = time.time()
        pipe = self._redis.pipeline(transaction=False)
        for item, at in timed:
            # Each message is its own member of the set, even when two are word for word the same.
            text = json.dumps({**item, "queued": uuid.uuid4().hex}, separators=(",", ":"))
            if at <= now:
                pipe.lpush(self.ready, text)
            else:
                pipe.zadd(self.later, {text: at})
        try:
            pipe.execute()
        except redis.RedisError:
            self._failed("queueing")
            return False
        self._reached()
        return True

    def claim(self, timeout_s: float = 1.0) -> dict | None:
        """One message that is due, now claimed by this process alone; None when none is due within
        `timeout_s` (or Redis is down: waited out, so the caller's loop does not spin)."""
        import redis
        end = time.time() + timeout_s
        while True:
            text = None
            try:
                if self.up():
                    text = self._claim(keys=[self.later, self.ready], args=[time.time(), MOVE_AT_ONCE])
                    self._reached()
            except redis.RedisError:
                self._failed("claiming")
                text = None
            left = end - time.time()
            if text is None and left > 0 and self.up():
                try:  # a message due now arrives on the list: taken at once (due-later ones each BLOCK_S)
                    popped = self._waiting.brpop([self.ready], timeout=min(BLOCK_S, max(left, 0.01)))
                    text = popped[1] if popped else None
                except redis.RedisError:
                    self._failed("waiting")
            if text is not None:
                item = json.loads(text)
                item.pop("queued", None)
                return item
            if time.time() >= end:
                return None
            if not self.up():
                time.sleep(min(BLOCK_S, max(0.0, end - time.time())))

    def due_count(self) -> int:
        """Messages waiting that are due now (0 when Redis is down: nothing of ours is there to wait for)."""
        import redis
        if not self.up():
            return 0
        try:
            pipe = self._redis.pipeline(transaction=False)
            pipe.llen(self.ready)
            pipe.zcount(self.later, "-inf", time.time())
            ready, due = pipe.execute()
        except redis.RedisError:
            return 0
        return int(ready) + int(due)

    def clear(self) -> None:
        """Forget every waiting message (tests)."""
        self._redis.delete(self.ready, self.later)

