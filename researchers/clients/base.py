"""A polite HTTP client for registries: minimum spacing, rate-limit headers, retries, timeouts."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from email.utils import parsedate_to_datetime
from typing import Any

import httpx

logger = logging.getLogger(__name__)

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})


class SourceUnavailable(Exception):
    """A registry kept failing (429/5xx or transport errors) after every retry."""


class SourceError(Exception):
    """A registry refused the request itself (4xx other than 404 and 429): a bug to fix."""


def _seconds(value: str | None, now: float) -> float | None:
    """A ``Retry-After``/``X-RateLimit-Reset`` value in seconds from now.

    Accepts delta seconds, a Unix epoch (values above 10^9) or an HTTP date.
    """
    if not value:
        return None
    value = value.strip()
    try:
        number = float(value)
    except ValueError:
        try:
            return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
        except (TypeError, ValueError):
            return None
    if number > 1e9:  # an epoch, not a delay
        return max(0.0, number - time.time())
    return max(0.0, number)


class SourceClient:
    """HTTP JSON client with a minimum interval between requests, ``X-RateLimit-*``
    handling, retries with exponential backoff on 429/5xx/transport errors, and timeouts.

    ``min_interval`` is seconds between request starts (Semantic Scholar: 1 s per key).
    A response with ``X-RateLimit-Remaining: 0`` delays the next request until
    ``X-RateLimit-Reset``; a 429 or 5xx waits ``Retry-After`` when given, else
    ``backoff * 2**attempt`` (capped at ``max_backoff``). ``sleep`` and ``clock`` are
    injectable for tests; ``transport`` lets tests replay recorded responses.
    """

    def __init__(
        self,
        base_url: str,
        *,
        min_interval: float = 1.0,
        timeout: float = 30.0,
        headers: dict[str, str] | None = None,
        params: dict[str, str] | None = None,
        max_retries: int = 4,
        backoff: float = 2.0,
        max_backoff: float = 120.0,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.http = httpx.Client(
            base_url=base_url.rstrip("/") + "/",
            timeout=httpx.Timeout(timeout, connect=min(timeout, 10.0)),
            headers=headers or {},
            transport=transport,
        )
        self.default_params = {k: v for k, v in (params or {}).items() if v}
        self.min_interval = min_interval
        self.max_retries = max_retries
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.sleep = sleep
        self.clock = clock
        self._next_allowed = 0.0
        self.requests_made = 0

    def __enter__(self) -> SourceClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection pool."""
        self.http.close()

    def _wait_turn(self) -> None:
        delay = self._next_allowed - self.clock()
        if delay > 0:
            self.sleep(delay)
        self._next_allowed = self.clock() + self.min_interval

    def _note_rate_limit(self, response: httpx.Response) -> None:
        remaining = response.headers.get("X-RateLimit-Remaining")
        if remaining is not None and remaining.strip().isdigit() and int(remaining) == 0:
            reset = _seconds(response.headers.get("X-RateLimit-Reset"), self.clock())
            if reset:
                self._next_allowed = max(self._next_allowed, self.clock() + min(reset, 24 * 3600))

    def request(
        self, method: str, path: str, *, params: dict[str, Any] | None = None, json: Any = None
    ) -> Any | None:
        """Send a request and return the decoded JSON body; ``None`` for 404.

        Raises :class:`SourceUnavailable` when 429/5xx/transport errors outlast the retries,
        :class:`SourceError` for another 4xx or a body that is not JSON.
        """
        merged = {**self.default_params, **(params or {})}
        for attempt in range(self.max_retries + 1):
            self._wait_turn()
            self.requests_made += 1
            try:
                response = self.http.request(method, path, params=merged or None, json=json)
            except httpx.TransportError as exc:
                wait = min(self.max_backoff, self.backoff * 2**attempt)
                logger.warning("%s %s: %s; retry in %.0f s", method, path, exc, wait)
                if attempt == self.max_retries:
                    raise SourceUnavailable(f"{method} {path}: {exc}") from exc
                self.sleep(wait)
                continue
            self._note_rate_limit(response)
            if response.status_code in RETRY_STATUSES:
                retry_after = _seconds(response.headers.get("Retry-After"), self.clock())
                wait = retry_after if retry_after is not None else self.backoff * 2**attempt
                wait = min(self.max_backoff, wait)
                logger.warning("%s %s: HTTP %s; retry in %.0f s", method, path, response.status_code, wait)
                if attempt == self.max_retries:
                    raise SourceUnavailable(f"{method} {path}: HTTP {response.status_code}")
                self.sleep(wait)
                continue
            if response.status_code == 404:
                return None
            if response.status_code >= 400:
                raise SourceError(f"{method} {path}: HTTP {response.status_code}: {response.text[:300]}")
            try:
                return response.json()
            except ValueError as exc:
                raise SourceError(f"{method} {path}: body is not JSON") from exc
        raise SourceUnavailable(f"{method} {path}: no attempts left")  # pragma: no cover
