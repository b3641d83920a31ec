"""The API rate limit holds under concurrent load: of many simultaneous requests from one
client, exactly the limit get through (tests/api/test_ratelimit.py covers the 429 itself,
its headers, and a count shared with another process)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.celery_helpers import redis_server
from wove import ratelimit

pytestmark = pytest.mark.django_db


@pytest.fixture
def limited(settings):
    import redis

    with redis_server() as url:
        settings.RATELIMIT_ENABLED = True
        settings.RATELIMIT_REDIS_URL = url
        settings.API_RATELIMIT_REQUESTS = 5
        settings.API_RATELIMIT_WINDOW = 3600  # one fixed window for the whole test
        redis.Redis.from_url(ratelimit.redis_url(url)).flushall()
        ratelimit.limiter.reset_backoff()
        yield url
        ratelimit.limiter.reset_backoff()


def test_concurrent_hits_allow_exactly_the_limit(limited):
    # 8 threads x 40 requests from one address, limit 150: INCR in a MULTI is atomic, so
    # no two requests can both take the last slot.
    def burst(_):
        return [ratelimit.limiter.hit("ip:198.51.100.7", limit=150, window=3600).allowed for _ in range(40)]

    with ThreadPoolExecutor(max_workers=8) as pool:
        outcomes = [allowed for batch in pool.map(burst, range(8)) for allowed in batch]
    assert (outcomes.count(True), outcomes.count(False)) == (150, 170)
    # Another address is counted apart.
    assert ratelimit.limiter.hit("ip:198.51.100.8", limit=150, window=3600).remaining == 149


def test_n_plus_one_api_requests_the_last_is_429(client, limited):
    statuses = [client.get("/api/v1/papers", {"size": 1}).status_code for _ in range(6)]
    assert statuses == [200, 200, 200, 200, 200, 429]
    # Varying what a client controls does not reset the count: the path, the query, a
    # forged X-Forwarded-For (not trusted unless BEHIND_PROXY), an IPv6 neighbour in the /64.
    assert client.get("/api/v1/researchers").status_code == 429
    assert client.get("/api/v1/papers", {"q": "x"}, HTTP_X_FORWARDED_FOR="203.0.113.9").status_code == 429
    assert client.get("/api/v1/papers", REMOTE_ADDR="2001:db8::1").status_code == 200
    for _ in range(4):
        client.get("/api/v1/papers", REMOTE_ADDR="2001:db8::1")
    assert client.get("/api/v1/papers", REMOTE_ADDR="2001:db8::ffff:1").status_code == 429
