"""``manage.py embed_papers`` with and without its progress bar."""

from __future__ import annotations

import io
import sys
from io import StringIO

from django.core.management import call_command

from semantic.models import PaperEmbedding


class _Terminal(io.StringIO):
    """A stderr that says it is a terminal, so tqdm draws its bar instead of disabling it."""

    def isatty(self) -> bool:
        return True


def test_embed_papers_with_progress_bar(semantic_ready, tiny_papers, monkeypatch):
    from functools import partial

    from semantic.management.commands import embed_papers as command

    stderr = _Terminal()
    monkeypatch.setattr(sys, "stderr", stderr)
    # Draw every update (tqdm skips redraws within 0.1 s, and a bar that leaves nothing
    # behind may close before showing its last count).
    monkeypatch.setattr(command, "tqdm", partial(command.tqdm, mininterval=0, miniters=1))
    out = StringIO()
    call_command("embed_papers", "--batch-size", "4", stdout=out)
    lines = out.getvalue().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("embed_papers: 6 embedded, 0 already current, 0 skipped in ")
    assert PaperEmbedding.objects.count() == 6
    # The bar was drawn on the terminal and counted the six papers (two batches: 4 then 2)
    # out of the six it knew it had to embed (issue 29: a total, so a percentage and an ETA).
    assert "embed" in stderr.getvalue()
    assert "|6/6[" in stderr.getvalue().replace(" ", "")


def test_embed_papers_without_progress_bar(semantic_ready, tiny_papers, monkeypatch):
    stderr = _Terminal()
    monkeypatch.setattr(sys, "stderr", stderr)
    out = StringIO()
    call_command("embed_papers", "--no-progress", stdout=out)
    lines = out.getvalue().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("embed_papers: 6 embedded, 0 already current, 0 skipped in ")
    assert stderr.getvalue() == ""

    out = StringIO()
    call_command("embed_papers", stdout=out)  # a re-run: every vector current, bar on
    assert out.getvalue().splitlines() == [out.getvalue().strip()]
    assert out.getvalue().startswith("embed_papers: 0 embedded, 6 already current, 0 skipped in ")
