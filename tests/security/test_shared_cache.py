"""Production's cache lives in Redis, so allauth's rate limits (counted in the cache) hold
across gunicorn workers; Redis down, the cache reads as empty and pages still work."""

from __future__ import annotations

import logging
import os
import subprocess
import sys

import pytest
from django.conf import settings as django_settings
from django.core.cache import cache

from tests.celery_helpers import redis_server
from tests.celery_helpers import test_database_url as database_url_for_tests
from tests.conftest import ROOT

pytestmark = pytest.mark.django_db


def _redis_cache(url: str) -> dict:
    return {
        "default": {
            "BACKEND": "wove.cache.FailOpenRedisCache",
            "LOCATION": url.replace("redis+socket://", "unix://", 1),
            "KEY_PREFIX": "wove",
            "OPTIONS": {"socket_connect_timeout": 0.25, "socket_timeout": 0.25},
        },
        # Each process's own facts (wove/settings.py), kept as production keeps them.
        "process": django_settings.CACHES["process"],
    }


@pytest.fixture
def redis_cache(settings):
    with redis_server() as url:
        settings.CACHES = _redis_cache(url)
        cache.clear()
        yield url
    settings.CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
        "process": django_settings.CACHES["process"],
    }


def test_failed_sign_ins_are_counted_across_processes(client, redis_cache):
    # allauth allows 5 failed sign-ins per account per 5 minutes. Another process (a second
    # gunicorn worker) records 4 of them in the shared cache; this one may fail once more.

    code = (
        "import django, os\n"
        "os.environ['DJANGO_SETTINGS_MODULE'] = 'wove.settings'\n"
        "django.setup()\n"
        "from django.test import Client\n"
        "c = Client(HTTP_HOST='127.0.0.1')\n"
        "print([c.post('/accounts/login/', {'login': 'nobody@example.org', 'password': 'wrong'}).status_code"
        " for _ in range(4)])\n"
    )
    # The other process reads the test database. The login names no account (allauth counts
    # those too, so probing for addresses is limited as well): an account created here
    # would not be visible there, and allauth keys an account's count by the account.
    url = database_url_for_tests()  # a TCP host or the embedded server's socket directory
    env = {**os.environ, "WOVE_TESTING": "1", "CACHE_REDIS_URL": redis_cache, "DATABASE_URL": url}
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert out.stdout.strip().splitlines()[0] == "[200, 200, 200, 200]", out.stderr[-2000:]
    refused = "Too many failed login attempts"
    bodies = [
        client.post(
            "/accounts/login/", {"login": "nobody@example.org", "password": "wrong"}, HTTP_HOST="127.0.0.1"
        ).content.decode()
        for _ in range(2)
    ]
    assert [refused in body for body in bodies] == [False, True]  # the 5th fails, the 6th is refused


def test_redis_down_reads_as_empty_and_pages_work(client, settings, caplog):
    settings.CACHES = _redis_cache("unix:///nonexistent/wove-cache.sock")
    with caplog.at_level(logging.WARNING, logger="wove.cache"):
        assert cache.get("anything", "fallback") == "fallback"
        assert cache.add("lock", True) is True
        cache.set("k", 1)
        assert cache.get("k") is None
        assert client.get("/").status_code == 200
        assert client.post("/accounts/login/", {"login": "a@example.org", "password": "x"}).status_code == 200
    assert "Redis unreachable" in caplog.text
    settings.CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
        "process": django_settings.CACHES["process"],
    }


def test_production_settings_choose_the_redis_cache():
    code = (
        "import django, os; os.environ['DJANGO_SETTINGS_MODULE'] = 'wove.settings'; django.setup();"
        "from django.conf import settings as s; c = s.CACHES['default'];"
        "print(c['BACKEND'], c.get('LOCATION', ''))"
    )
    base = {"PATH": os.environ.get("PATH", ""), "DATABASE_URL": "postgresql://wove@127.0.0.1:5432/wove"}
    production = {**base, "SECRET_KEY": "x" * 60, "CELERY_BROKER_URL": "redis+socket:///srv/wove/redis.sock"}
    local = {**base, "WOVE_LOCAL": "1", "CELERY_BROKER_URL": "redis://127.0.0.1:6379/0"}
    outs = [
        subprocess.run(
            [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
        )
        for env in (production, local)
    ]
    assert outs[0].stdout.split() == ["wove.cache.FailOpenRedisCache", "unix:///srv/wove/redis.sock"], outs[
        0
    ].stderr
    assert outs[1].stdout.split()[0] == "django.core.cache.backends.locmem.LocMemCache", outs[1].stderr
