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

    # serialize=False: Django's default reads every row of a kept database into memory (for
    # test rollbacks no bench uses): 760 MB and seconds after a 100,000-paper run.
    connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False, keepdb=True)
    return connection


def shifted(arxiv_id: str, copy: int) -> str:
    """``arxiv_id`` for copy ``copy`` of the sample: its two year digits moved by ``copy``
    (mod 100). The sample's months (0704, 0705, 0801) differ, so ids stay unique for up to
    100 copies (``0704.4001`` copy 2 is ``0904.4001``)."""
    return f"{(int(arxiv_id[:2]) + copy) % 100:02d}{arxiv_id[2:]}"
