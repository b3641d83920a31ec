"""Shared set-up for benchmarks: Django configured against a separate ``bench_*`` database."""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def django_with_bench_db(name: str = "wove_bench"):
    """Configure Django and switch the default connection to a migrated database ``name``
    on the same server (created on first use, kept afterwards). Returns the connection."""
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "wove.settings")
    os.environ.setdefault("WOVE_LOCAL", "1")
    os.environ["WOVE_TEST_DB"] = name
    import django

    django.setup()
    from django.db import connection

    connection.creation.create_test_db(verbosity=0, autoclobber=True, keepdb=True)
    return connection
