"""API rate limits counted in Redis (shared by every process), failing open when Redis is down."""

from __future__ import annotations

import ipaddress
import logging
import threading
import time
from dataclasses import dataclass

from django.conf import settings
from django.http import HttpRequest

logger = logging.getLogger(__name__)

_KEY_PREFIX = "wove:rl:"
# After a Redis failure, requests pass unchecked for this long before Redis is tried again,
# so an outage costs one connect timeout per interval, not one per request.
_BACKOFF_SECONDS = 5.0
_TIMEOUT_SECONDS = 0.25


@dataclass(frozen=True)
class Decision:
    """The outcome of one check.

    ``allowed``; ``limit`` requests per window; ``remaining`` in this window (never
    negative); ``reset`` seconds until the window ends (also the ``Retry-After`` of a 429).
    ``checked`` is False when no count was made (limits off, or Redis unreachable).
    """

    allowed: bool
    limit: int
    remaining: int
    reset: int
    checked: bool = True

    def headers(self) -> dict[str, str]:
        """``X-RateLimit-Limit``/``-Remaining``/``-Reset`` (seconds, as in the IETF
        RateLimit header draft), plus ``Retry-After`` when refused (RFC 9110 §10.2.3)."""
        if not self.checked:
            return {}
        out = {
            "X-RateLimit-Limit": str(self.limit),
            "X-RateLimit-Remaining": str(self.remaining),
            "X-RateLimit-Reset": str(self.reset),
        }
        if not self.allowed:
            out["Retry-After"] = str(self.reset)
        return out


def redis_url(url: str) -> str:
    """A URL redis-py accepts: Celery/kombu's ``redis+socket:///path`` (the embedded broker)
    becomes ``unix:///path``; ``redis://``, ``rediss://`` and ``unix://`` pass unchanged."""
    if url.startswith("redis+socket://"):
        return "unix://" + url[len("redis+socket://") :]
    return url


class RedisLimiter:
    """Fixed-window counters in Redis: ``INCR`` of ``wove:rl:<client>:<window>`` with a TTL.

    One round trip per request (a MULTI pipeline). Any Redis error lets the request through
    (fail open), is logged, and pauses Redis use for a few seconds.
    """

    def __init__(self) -> None:
        self._client = None
        self._client_url = ""
        self._down_until = 0.0
        self._lock = threading.Lock()

    def _redis(self):
        import redis

        url = redis_url(settings.RATELIMIT_REDIS_URL)
        with self._lock:
            if self._client is None or self._client_url != url:
                self._client = redis.Redis.from_url(
                    url, socket_timeout=_TIMEOUT_SECONDS, socket_connect_timeout=_TIMEOUT_SECONDS
                )
                self._client_url = url
            return self._client

    def reset_backoff(self) -> None:
        """Forget a past failure (tests, or after reconfiguring)."""
        self._down_until = 0.0
        self._client = None

    def hit(self, client: str, *, limit: int, window: int) -> Decision:
        """Count one request of ``client`` and decide. ``limit`` requests per ``window`` seconds."""
        now = time.time()
        window_index = int(now // window)
        reset = max(1, int((window_index + 1) * window - now + 0.999))
        if now < self._down_until:
            return Decision(True, limit, limit, reset, checked=False)
        key = f"{_KEY_PREFIX}{client}:{window}:{window_index}"
        try:
            import redis

            pipe = self._redis().pipeline(transaction=True)
            pipe.incr(key)
            pipe.expire(key, window + 1)
            count, _ = pipe.execute()
        except (redis.exceptions.RedisError, OSError, ValueError) as exc:
            self._down_until = now + _BACKOFF_SECONDS
            logger.warning("rate limit: Redis unreachable (%s); letting requests through", exc)
            return Decision(True, limit, limit, reset, checked=False)
        count = int(count)
        return Decision(count <= limit, limit, max(0, limit - count), reset)


limiter = RedisLimiter()


def client_key(request: HttpRequest) -> str:
    """Who is counted: ``ip:<address>``. The API has no accounts or keys, so every client is
    anonymous (reading ``request.user`` would also add ``Vary: Cookie`` and spoil caching).

    The address is ``REMOTE_ADDR``, or the right-most ``X-Forwarded-For`` entry (the one our
    own proxy appended) when ``RATELIMIT_TRUST_FORWARDED`` is on. IPv6 clients are counted
    per /64, since one host usually holds a whole /64.
    """
    address = request.META.get("REMOTE_ADDR", "") or ""
    if getattr(settings, "RATELIMIT_TRUST_FORWARDED", False):
        forwarded = [p.strip() for p in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if p.strip()]
        if forwarded:
            address = forwarded[-1]
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return f"ip:{address[:64] or 'unknown'}"
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return f"ip:{ip.ipv4_mapped}"
        return f"ip:{ipaddress.ip_network(f'{ip}/64', strict=False)}"
    return f"ip:{ip}"


def check_request(request: HttpRequest) -> Decision:
    """Count ``request`` against the API limit (``API_RATELIMIT_REQUESTS`` per
    ``API_RATELIMIT_WINDOW`` seconds per client). Unchecked when ``RATELIMIT_ENABLED`` is off."""
    limit = int(getattr(settings, "API_RATELIMIT_REQUESTS", 120))
    window = int(getattr(settings, "API_RATELIMIT_WINDOW", 60))
    if not getattr(settings, "RATELIMIT_ENABLED", False):
        return Decision(True, limit, limit, window, checked=False)
    return limiter.hit(client_key(request), limit=limit, window=window)
