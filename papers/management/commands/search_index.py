"""``manage.py search_index [sync|rebuild|status|prune] [--follow SECONDS]``: the keyword
search index beside PostgreSQL (:mod:`papers.search_index`, issue 28)."""

from __future__ import annotations

import time

from django.core.management.base import BaseCommand, CommandError

from papers import search_index, search_index_sync


class Command(BaseCommand):
    help = (
        "Keep this host's copy of the search index: sync (apply the change log; builds the copy "
        "when there is none), rebuild (build anew from PostgreSQL), status, prune (drop log entries "
        "every copy has had time to apply). --follow N syncs every N seconds (a web host that runs "
        "no pipeline worker keeps its own copy this way; SCALING.md)."
    )

    def add_arguments(self, parser):
        actions = ["sync", "rebuild", "status", "prune"]
        parser.add_argument("action", nargs="?", default="sync", choices=actions)
        parser.add_argument("--follow", type=float, default=0, metavar="SECONDS")

    def handle(self, *args, action: str, follow: float, **options):
        if search_index.index_root() is None:
            raise CommandError("SEARCH_INDEX_DIR is empty: the search index is off")
        if action == "status":
            for key, value in search_index_sync.status().items():
                self.stdout.write(f"{key}: {value}")
            return
        if action == "prune":
            self.stdout.write(f"pruned {search_index_sync.prune_changes()} log entries")
            return
        while True:
            started = time.monotonic()
            if action == "rebuild":
                result = search_index_sync.rebuild()
                action = "sync"  # following a rebuild: keep in step
            else:
                result = search_index_sync.sync()
            if result.get("papers") or result.get("changes") or result.get("rebuilt") or not follow:
                took = time.monotonic() - started
                self.stdout.write(f"search index: {result} in {took:.1f} s")
            if not follow:
                return
            time.sleep(follow)
