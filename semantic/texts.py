"""The text embedded for a paper (issue 10), one definition for the embeddings stage and the
model build's calibration papers (issue 29)."""

from __future__ import annotations


def paper_text(*, title: str, abstract: str) -> str:
    """The text embedded for a paper: title and abstract, whitespace collapsed."""
    return " ".join(f"{title}. {abstract}".split())
