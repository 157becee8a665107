"""Web Push messages waiting in Redis, so any process can send them and neither a restart nor a process
that dies while sending loses one.

Four keys under the prefix (PUSH_REDIS_PREFIX): `<prefix>:ready`, a list of messages due now;
`<prefix>:later`, a sorted set of messages due later scored by their due time (epoch seconds);
`<prefix>:claimed`, a sorted set of the messages being sent, scored by when their lease runs out; and
`<prefix>:claims`, the counter that numbers the claims. A process claims one with a script that, in one
step on the Redis server, puts every claim whose lease has run out back at the head of the ready list
(its process died, or froze), moves whatever has fallen due from the set to the list, pops the list's
oldest and records it as claimed, numbered, with a fresh lease: two processes never hold one message at
once, and any process that claims recovers what a dead one held.

The sender answers for its claim (`done`) once the push service answered, or the message was dropped;
the retries a failure schedules are queued by the same script that releases the claim, so a message is
either held or waiting, never neither. A sender still working keeps its lease (`keep`). A slow sender
whose lease ran out anyway may find its message taken by another process: it then stops, and the other
sends the message whole again (at least once, never lost; a phone may get one message twice).

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
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger(__name__)
PREFIX = "shuffleup:push"
TIMEOUT_S = 0.5
RETRY_S = 10.0
MOVE_AT_ONCE = 100  # messages moved from due-later (or lapsed claims) to ready by one claim
BLOCK_S = 0.25  # an idle pump's wait on the ready list: a message due later goes within this of its time
# A claim's lease: well above the longest single post (PUSH_TIMEOUT_S, 10 s), and kept while the sender
# works through a message's phones, so only a dead (or frozen) process lets it run out.
LEASE_S = 60.0
LEASE_PER_POST_TIMEOUT = 3  # the lease is never shorter than this many post timeouts

# KEYS: later, ready, claimed, claims. ARGV: now, how many to move, the lease's end.
# Lapsed claims go back first, to the end the list is popped from (they have waited longest; the first to
# lapse is pushed last, so it is first out); then what is due; then the oldest ready is claimed as
# "<number> <message>" (numbered: a claim is its holder's alone, even when a lapsed message is claimed
# again by another process).
_CLAIM = """
local lapsed = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
for i = #lapsed, 1, -1 do
  redis.call('ZREM', KEYS[3], lapsed[i])
  redis.call('RPUSH', KEYS[2], string.sub(lapsed[i], string.find(lapsed[i], ' ', 1, true) + 1))
end
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
for _, message in ipairs(due) do
  redis.call('ZREM', KEYS[1], message)
  redis.call('LPUSH', KEYS[2], message)
end
local message = redis.call('RPOP', KEYS[2])
if not message then
  return false
end
local claim = redis.call('INCR', KEYS[4]) .. ' ' .. message
redis.call('ZADD', KEYS[3], ARGV[3], claim)
return claim
"""

# KEYS: claimed, ready. ARGV: the claim, its message, the lease's end. Still ours: the lease renewed (1).
# Lapsed but not yet claimed again: taken back from the ready list, ours again (1). Claimed by another
# process meanwhile: 0 (that process sends it).
_KEEP = """
if redis.call('ZSCORE', KEYS[1], ARGV[1]) or redis.call('LREM', KEYS[2], 1, ARGV[2]) == 1 then
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
  return 1
end
return 0
"""

# KEYS: claimed, ready, later. ARGV: the claim, its message, now, then (due at, retry) pairs.
# Releases the claim (or takes its lapsed message back from the ready list) and queues the retries in
# the same step; 0, queueing nothing, when another process claimed the message again meanwhile (it
# sends it whole, retries and all).
_DONE = """
if redis.call('ZREM', KEYS[1], ARGV[1]) == 0 and redis.call('LREM', KEYS[2], 1, ARGV[2]) == 0 then
  return 0
end
for i = 4, #ARGV, 2 do
  if tonumber(ARGV[i]) <= tonumber(ARGV[3]) then
    redis.call('LPUSH', KEYS[2], ARGV[i + 1])
  else
    redis.call('ZADD', KEYS[3], ARGV[i], ARGV[i + 1])
  end
end
return 1
"""


@dataclass
class Claim:
    """A message this process holds: the message, the claim as Redis knows it, when its lease was last
    renewed (the sender renews it only when a quarter of it has gone)."""

    item: dict
    receipt: str
    kept_at: float = field(default_factory=time.time)

    @property
    def text(self) -> str:
        return self.receipt.split(" ", 1)[1]


class RedisQueue:
    """The shared queue of one app's push messages (see the module's note)."""

    def __init__(self, url: str, prefix: str = PREFIX, timeout_s: float = TIMEOUT_S, retry_s: float = RETRY_S,
                 lease_s: float = LEASE_S) -> None:
        import redis
        self._redis = redis.Redis.from_url(url, socket_timeout=timeout_s, socket_connect_timeout=timeout_s)
        # The pump's own connection: it waits on the ready list up to BLOCK_S at a time.
        self._waiting = redis.Redis.from_url(url, socket_timeout=timeout_s + BLOCK_S,
                                             socket_connect_timeout=timeout_s)
        self.ready, self.later = f"{prefix}:ready", f"{prefix}:later"
        self.claimed, self.claims = f"{prefix}:claimed", f"{prefix}:claims"
        self._claim = self._redis.register_script(_CLAIM)
        self._keep = self._redis.register_script(_KEEP)
        self._done = self._redis.register_script(_DONE)
        self.lease_s = lease_s
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
        lease = max(config.get("PUSH_LEASE_S", LEASE_S), LEASE_PER_POST_TIMEOUT * config.get("PUSH_TIMEOUT_S", 10))
        return cls(url, config.get("PUSH_REDIS_PREFIX", PREFIX), config.get("PUSH_REDIS_TIMEOUT_S", TIMEOUT_S),
                   config.get("PUSH_REDIS_RETRY_S", RETRY_S), lease)

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

    @staticmethod
    def _text(item: dict) -> str:
        # Each message is its own member of the set, even when two are word for word the same.
        return json.dumps({**item, "queued": uuid.uuid4().hex}, separators=(",", ":"))

    def put(self, timed: list[tuple[dict, float]]) -> bool:
        """Queue (message, due at) pairs in one round trip; False (nothing queued) when Redis is down."""
        if not self.up():
            return False
        import redis
        now = time.time()
        pipe = self._redis.pipeline(transaction=False)
        for item, at in timed:
            if at <= now:
                pipe.lpush(self.ready, self._text(item))
            else:
                pipe.zadd(self.later, {self._text(item): at})
        try:
            pipe.execute()
        except redis.RedisError:
            self._failed("queueing")
            return False
        self._reached()
        return True

    def claim(self, timeout_s: float = 1.0) -> Claim | None:
        """One message that is due, now claimed by this process alone with a lease of `lease_s` (a lapsed
        claim of a dead process's is due again first); None when none is due within `timeout_s` (or Redis
        is down: waited out, so the caller's loop does not spin)."""
        import redis
        end = time.time() + timeout_s
        while True:
            receipt = None
            try:
                if self.up():
                    now = time.time()
                    receipt = self._claim(keys=[self.later, self.ready, self.claimed, self.claims],
                                          args=[now, MOVE_AT_ONCE, now + self.lease_s])
                    self._reached()
            except redis.RedisError:
                self._failed("claiming")
                receipt = None
            if receipt is not None:
                receipt = receipt.decode() if isinstance(receipt, bytes) else receipt
                item = json.loads(receipt.split(" ", 1)[1])
                item.pop("queued", None)
                return Claim(item, receipt)
            left = end - time.time()
            if left <= 0:
                return None
            if self.up():
                try:  # wake when a message is ready (due-later ones each BLOCK_S). The wait moves the list's
                    # oldest to its other end and takes nothing out of Redis: the claim above takes it.
                    self._waiting.blmove(self.ready, self.ready, min(BLOCK_S, max(left, 0.01)), "RIGHT", "LEFT")
                except redis.RedisError:
                    self._failed("waiting")
            if not self.up():
                time.sleep(min(BLOCK_S, max(0.0, end - time.time())))

    def keep(self, claim: Claim) -> bool:
        """The claim renewed for another `lease_s` (a sender still at work on it); False when its lease ran
        out and another process has claimed the message since (it sends it: this one stops). Redis down:
        True (the sender goes on; at worst the message is sent again once its lease has run out)."""
        import redis
        try:
            kept = self._keep(keys=[self.claimed, self.ready], args=[claim.receipt, claim.text,
                                                                       time.time() + self.lease_s])
        except redis.RedisError:
            self._failed("keeping a claim")
            return True
        claim.kept_at = time.time()
        return bool(kept)

    def done(self, claim: Claim, retries: list[tuple[dict, float]]) -> bool | None:
        """The claimed message answered for: its claim released and its (retry, due at) pairs queued, in one
        step. False: another process had claimed it again (its lease ran out): nothing queued, that
        process sends it. None: Redis is down (the claim lapses in time; the caller keeps the retries)."""
        import redis
        args: list[Any] = [claim.receipt, claim.text, time.time()]
        for item, at in retries:
            args += [at, self._text(item)]
        try:
            released = self._done(keys=[self.claimed, self.ready, self.later], args=args)
        except redis.RedisError:
            self._failed("answering for a claim")
            return None
        return bool(released)

    def due_count(self) -> int:
        """Messages waiting that are due now, lapsed claims among them (0 when Redis is down: nothing of
        ours is there to wait for)."""
        import redis
        if not self.up():
            return 0
        try:
            pipe = self._redis.pipeline(transaction=False)
            pipe.llen(self.ready)
            pipe.zcount(self.later, "-inf", time.time())
            pipe.zcount(self.claimed, "-inf", time.time())
            ready, due, lapsed = pipe.execute()
        except redis.RedisError:
            return 0
        return int(ready) + int(due) + int(lapsed)

    def clear(self) -> None:
        """Forget every waiting and claimed message (tests)."""
        self._redis.delete(self.ready, self.later, self.claimed, self.claims)
