"""`manage.py check --deploy` is clean for production settings: no WOVE_LOCAL, no DEBUG, a
long random SECRET_KEY and real ALLOWED_HOSTS, nothing else set (run in a clean process,
since settings are read from the environment once)."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys

import pytest

from tests.conftest import ROOT


def _check(**extra: str) -> subprocess.CompletedProcess:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": os.environ.get("HOME", "/tmp"),
        "SECRET_KEY": secrets.token_urlsafe(48),  # 64 characters, as check --deploy wants (50+)
        "ALLOWED_HOSTS": "wovepaper.example.org",
        # Never connected to by `check`; set so settings do not start the embedded server.
        "DATABASE_URL": "postgresql://wove@127.0.0.1:5432/wove",
        "CELERY_BROKER_URL": "redis://127.0.0.1:6379/0",
        **extra,
    }
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_production_settings_pass_check_deploy():
    # Bug: W004 (no HSTS) and W008 (no SSL redirect) with the defaults.
    result = _check()
    assert result.returncode == 0, result.stderr + result.stdout
    assert "System check identified no issues (0 silenced)." in result.stdout


@pytest.mark.parametrize("extra", [{"BEHIND_PROXY": "1"}, {"SECURE_HSTS_SECONDS": "63072000"}])
def test_documented_production_knobs_stay_clean(extra):
    result = _check(**extra)
    assert result.returncode == 0, result.stderr + result.stdout


def test_production_refuses_to_start_without_a_secret_key():
    result = _check(SECRET_KEY="")
    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


def test_local_run_keeps_plain_http():
    # WOVE_LOCAL (make run) serves http://127.0.0.1: no redirect, no HSTS, no secure cookies.
    code = (
        "import django, os; os.environ['DJANGO_SETTINGS_MODULE'] = 'wove.settings'; django.setup();"
        "from django.conf import settings as s;"
        "print(s.SECURE_SSL_REDIRECT, s.SECURE_HSTS_SECONDS, s.PRODUCTION)"
    )
    env = {
        "PATH": os.environ.get("PATH", ""),
        "WOVE_LOCAL": "1",
        "DATABASE_URL": "postgresql://wove@127.0.0.1:5432/wove",
        "CELERY_BROKER_URL": "redis://127.0.0.1:6379/0",
        "SECURE_COOKIES": "0",
    }
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert out.stdout.split() == ["False", "0", "False"], out.stderr
