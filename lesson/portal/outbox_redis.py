"""The outbox's store in Redis (``OUTBOX_URL=redis://host:port/db``), for a deployment on several
machines: the same steps as the SQLite store, each one Lua script, so it is atomic however many
processes share the server. One Redis server (not a Cluster: a script touches several keys).

Keys, under ``lesson:outbox:``: ``seq`` (the last id), ``items`` (id -> the item as JSON), ``all``
(every id, in order), ``q:<destination>`` (that destination's ids, in order), ``dests``
(destination -> when it may be tried next), ``fail`` (destination -> failures in a row), ``dead``
and ``deadq`` (items given up, with their reason), ``counts`` and ``lease`` (the sender's, with a
Redis expiry). Durable as the server is configured: ``appendonly yes`` keeps a put across a
restart of Redis (``appendfsync always`` across a power cut too).
"""

from __future__ import annotations

import json
from typing import Any

import redis

from .outbox_items import Item
from .outbox_store import OutboxStore, store_stats

PREFIX = "lesson:outbox:"

# KEYS: counts seq items all dests q; ARGV: max_items max_bytes dest n then (record, size) n times
_PUT = """
local items = tonumber(redis.call('HGET', KEYS[1], 'items') or '0')
local bytes = tonumber(redis.call('HGET', KEYS[1], 'bytes') or '0')
local n = tonumber(ARGV[4])
local add = 0
for i = 1, n do add = add + tonumber(ARGV[4 + 2 * i]) end
if items + n > tonumber(ARGV[1]) or bytes + add > tonumber(ARGV[2]) then
  redis.call('HINCRBY', KEYS[1], 'refused', n)
  return false
end
local ids = {}
for i = 1, n do
  local id = redis.call('INCR', KEYS[2])
  redis.call('HSET', KEYS[3], id, ARGV[3 + 2 * i])
  redis.call('ZADD', KEYS[4], id, id)
  redis.call('ZADD', KEYS[6], id, id)
  ids[i] = id
end
redis.call('ZADD', KEYS[5], 'NX', 0, ARGV[3])
redis.call('HINCRBY', KEYS[1], 'items', n)
redis.call('HINCRBY', KEYS[1], 'bytes', add)
return ids
"""

# KEYS: counts items all dests fail dead deadq; ARGV: how (delivered|dropped|dead) reason now qprefix ids...
_TAKE = """
local removed, freed = 0, 0
for i = 5, #ARGV do
  local id = ARGV[i]
  local rec = redis.call('HGET', KEYS[2], id)
  if rec then
    local r = cjson.decode(rec)
    redis.call('HDEL', KEYS[2], id)
    redis.call('ZREM', KEYS[3], id)
    local q = ARGV[4] .. r.dest
    redis.call('ZREM', q, id)
    if redis.call('ZCARD', q) == 0 then
      redis.call('ZREM', KEYS[4], r.dest)
      redis.call('HDEL', KEYS[5], r.dest)
    elseif ARGV[1] == 'delivered' then
      redis.call('HDEL', KEYS[5], r.dest)
    end
    if ARGV[1] == 'dead' then
      r.reason = ARGV[2]
      r.given_up_at = tonumber(ARGV[3])
      redis.call('HSET', KEYS[6], id, cjson.encode(r))
      redis.call('ZADD', KEYS[7], id, id)
      redis.call('HINCRBY', KEYS[1], 'given_up', 1)
    end
    removed = removed + 1
    freed = freed + r.size
  end
end
if removed > 0 then  -- Redis reads Lua's -0 as no integer
  redis.call('HINCRBY', KEYS[1], 'items', -removed)
  redis.call('HINCRBY', KEYS[1], 'bytes', -freed)
  if ARGV[1] == 'delivered' then redis.call('HINCRBY', KEYS[1], 'delivered', removed) end
end
return removed
"""

# KEYS: dests fail items; ARGV: dest until reason ids...
_BACKOFF = """
redis.call('ZADD', KEYS[1], 'XX', ARGV[2], ARGV[1])
redis.call('HINCRBY', KEYS[2], ARGV[1], 1)
for i = 4, #ARGV do
  local rec = redis.call('HGET', KEYS[3], ARGV[i])
  if rec then
    local r = cjson.decode(rec)
    r.attempts = r.attempts + 1
    r.error = ARGV[3]
    redis.call('HSET', KEYS[3], ARGV[i], cjson.encode(r))
  end
end
return 1
"""

# KEYS: counts items all dests fail dead deadq; ARGV: qprefix ids...
_REQUEUE = """
local n = 0
for i = 2, #ARGV do
  local id = ARGV[i]
  local rec = redis.call('HGET', KEYS[6], id)
  if rec then
    local r = cjson.decode(rec)
    r.reason = nil
    r.given_up_at = nil
    redis.call('HDEL', KEYS[6], id)
    redis.call('ZREM', KEYS[7], id)
    redis.call('HSET', KEYS[2], id, cjson.encode(r))
    redis.call('ZADD', KEYS[3], id, id)
    redis.call('ZADD', ARGV[1] .. r.dest, id, id)
    redis.call('ZADD', KEYS[4], 0, r.dest)
    redis.call('HDEL', KEYS[5], r.dest)
    redis.call('HINCRBY', KEYS[1], 'items', 1)
    redis.call('HINCRBY', KEYS[1], 'bytes', r.size)
    n = n + 1
  end
end
return n
"""

_ACQUIRE = """
local cur = redis.call('GET', KEYS[1])
if not cur then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
elseif cur == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
"""

_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1
"""


class RedisStore(OutboxStore):
    def __init__(self, url: str, max_items: int, max_bytes: int, timeout: float = 2.0) -> None:
        self.url = url
        self.max_items, self.max_bytes = max_items, max_bytes
        # A short timeout: a put from a request must not hang on an unreachable server.
        self.r = redis.Redis.from_url(url, socket_timeout=timeout, socket_connect_timeout=timeout)
        k = {name: PREFIX + name for name in ("seq", "items", "all", "dests", "fail", "dead", "deadq", "counts")}
        self.k = k
        self._put = self.r.register_script(_PUT)
        self._take_script = self.r.register_script(_TAKE)
        self._backoff = self.r.register_script(_BACKOFF)
        self._requeue = self.r.register_script(_REQUEUE)
        self._acquire = self.r.register_script(_ACQUIRE)
        self._release = self.r.register_script(_RELEASE)

    def _q(self, destination: str) -> str:
        return f"{PREFIX}q:{destination}"

    def put(self, kind: str, destination: str, payloads: list[str], now: float) -> list[int] | None:
        args: list[Any] = [self.max_items, self.max_bytes, destination, len(payloads)]
        for p in payloads:
            size = len(p.encode())
            record = {"kind": kind, "dest": destination, "payload": p, "size": size, "created": now, "attempts": 0}
            args += [json.dumps(record | {"error": ""}), size]
        k = self.k
        ids = self._put(keys=[k["counts"], k["seq"], k["items"], k["all"], k["dests"], self._q(destination)], args=args)
        return None if ids is None else [int(i) for i in ids]

    def acquire(self, owner: str, ttl: float) -> bool:
        return bool(self._acquire(keys=[PREFIX + "lease"], args=[owner, max(1, int(ttl * 1000))]))

    def release(self, owner: str) -> None:
        self._release(keys=[PREFIX + "lease"], args=[owner])

    def due(self, now: float, limit: int) -> list[str]:
        return [d.decode() for d in self.r.zrangebyscore(self.k["dests"], "-inf", now, start=0, num=limit)]

    def next_due(self) -> float | None:
        first = self.r.zrange(self.k["dests"], 0, 0, withscores=True)
        return float(first[0][1]) if first else None

    @staticmethod
    def _item(id_: Any, rec: bytes | None) -> Item | None:
        if rec is None:
            return None
        r = json.loads(rec)
        return Item(
            int(id_),
            r["kind"],
            r["dest"],
            json.loads(r["payload"]),
            float(r["created"]),
            int(r.get("attempts", 0)),
            int(r["size"]),
            r.get("reason") or r.get("error") or "",
        )

    def _items(self, hash_key: str, ids: list[bytes]) -> list[Item]:
        if not ids:
            return []
        recs = self.r.hmget(hash_key, ids)
        return [i for i in (self._item(id_, rec) for id_, rec in zip(ids, recs, strict=True)) if i is not None]

    def head(self, destination: str, limit: int) -> list[Item]:
        return self._items(self.k["items"], self.r.zrange(self._q(destination), 0, limit - 1))

    def _take(self, how: str, ids: list[int], reason: str = "", now: float = 0.0) -> int:
        k = self.k
        keys = [k["counts"], k["items"], k["all"], k["dests"], k["fail"], k["dead"], k["deadq"]]
        return int(self._take_script(keys=keys, args=[how, reason, now, PREFIX + "q:", *ids]))

    def remove(self, ids: list[int], delivered: bool) -> int:
        return self._take("delivered" if delivered else "dropped", ids) if ids else 0

    def set_aside(self, item: Item, reason: str, now: float) -> None:
        self._take("dead", [item.id], reason, now)

    def backoff(self, destination: str, until: float, reason: str, ids: list[int]) -> None:
        k = self.k
        self._backoff(keys=[k["dests"], k["fail"], k["items"]], args=[destination, until, reason, *ids])

    def failures(self, destination: str) -> int:
        return int(self.r.hget(self.k["fail"], destination) or 0)

    def clear_backoff(self, destination: str) -> None:
        with self.r.pipeline() as p:
            p.zadd(self.k["dests"], {destination: 0}, xx=True)
            p.hdel(self.k["fail"], destination)
            p.execute()

    def stats(self, now: float) -> dict[str, Any]:
        with self.r.pipeline(transaction=False) as p:
            p.hgetall(self.k["counts"])
            p.zrange(self.k["all"], 0, 0)
            p.hlen(self.k["fail"])
            p.zcard(self.k["deadq"])
            counts, first, waiting, dead = p.execute()
        oldest = None
        if first:
            item = self._item(first[0], self.r.hget(self.k["items"], first[0]))
            oldest = item.created if item else None
        return store_stats({k.decode(): int(v) for k, v in counts.items()}, oldest, now, waiting, dead)

    def pending(self, limit: int) -> list[Item]:
        return self._items(self.k["items"], self.r.zrange(self.k["all"], 0, limit - 1))

    def dead(self, limit: int) -> list[Item]:
        return self._items(self.k["dead"], self.r.zrange(self.k["deadq"], 0, limit - 1))

    def requeue(self, ids: list[int]) -> int:
        if not ids:
            return 0
        k = self.k
        keys = [k["counts"], k["items"], k["all"], k["dests"], k["fail"], k["dead"], k["deadq"]]
        return int(self._requeue(keys=keys, args=[PREFIX + "q:", *ids]))

    def drop_dead(self, ids: list[int]) -> int:
        if not ids:
            return 0
        with self.r.pipeline() as p:
            p.hdel(self.k["dead"], *ids)
            p.zrem(self.k["deadq"], *ids)
            removed, _ = p.execute()
        return int(removed)

    def retry_now(self, ids: list[int] | None) -> int:
        if ids is None:
            dests = [d.decode() for d in self.r.zrange(self.k["dests"], 0, -1)]
        else:
            dests = sorted({i.destination for i in self._items(self.k["items"], [str(i).encode() for i in ids])})
        for d in dests:
            self.clear_backoff(d)
        return len(dests)

    def close(self) -> None:
        self.r.close()
