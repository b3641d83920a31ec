"""The production cache: Redis shared by every process, failing open when Redis is down."""

from __future__ import annotations

import functools
import logging
import time
from typing import Any

from django.core.cache.backends.redis import RedisCache

logger = logging.getLogger(__name__)

# After a Redis failure the cache reads as empty for this long before Redis is tried again,
# so an outage costs one connect timeout per interval, not one per cache call.
_BACKOFF_SECONDS = 5.0

# What each operation answers while Redis is unreachable: a miss, "added" (so allauth's
# rate-limit lock proceeds instead of waiting), nothing written.
_FALLBACK: dict[str, Any] = {
    "get": "default",
    "get_many": {},
    "has_key": False,
    "add": True,
    "set": None,
    "set_many": [],
    "touch": False,
    "delete": False,
    "delete_many": None,
    "clear": None,
}


def _fail_open(name: str):
    parent = getattr(RedisCache, name)

    @functools.wraps(parent)
    def method(self: FailOpenRedisCache, *args, **kwargs):
        import redis

        fallback = _FALLBACK[name]
        if fallback == "default":
            fallback = kwargs.get("default", args[1] if len(args) > 1 else None)
        if time.monotonic() < self._down_until:
            return fallback
        try:
            return parent(self, *args, **kwargs)
        except (redis.exceptions.RedisError, OSError) as exc:
            self._down_until = time.monotonic() + _BACKOFF_SECONDS
            logger.warning(
                "cache: Redis unreachable (%s); reading as empty for %.0f s", exc, _BACKOFF_SECONDS
            )
            return fallback

    return method


class FailOpenRedisCache(RedisCache):
    """Django's ``RedisCache`` where a Redis error is logged and read as a miss.

    Production keeps its cache here rather than in each process's memory because allauth
    counts its rate limits (failed sign-ins, sign-ups, confirmation and reset mails) in the
    cache: with ``LocMemCache`` every gunicorn worker kept its own count, so the limits
    multiplied by the number of workers and reset with each restart. While Redis is down,
    reads miss, writes are dropped and ``add`` reports success (limits are not enforced,
    like the API's limiter in :mod:`wove.ratelimit`); pages keep working.
    """

    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._down_until = 0.0

    get = _fail_open("get")
    get_many = _fail_open("get_many")
    has_key = _fail_open("has_key")
    add = _fail_open("add")
    set = _fail_open("set")
    set_many = _fail_open("set_many")
    touch = _fail_open("touch")
    delete = _fail_open("delete")
    delete_many = _fail_open("delete_many")
    clear = _fail_open("clear")
