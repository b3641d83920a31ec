"""The synthetic corpus as arXiv's own files: a Kaggle metadata snapshot (issue 29), so scale
runs start from the real entry point (``harvest_arxiv --kaggle``) rather than the database."""

from __future__ import annotations

import json
from collections.abc import Callable
from email.utils import format_datetime
from pathlib import Path

from .synthetic import CorpusGenerator, SampleShape, SyntheticPaper, sample_shape


def kaggle_line(paper: SyntheticPaper) -> dict:
    """One line of arXiv's Kaggle metadata snapshot for ``paper``: ``{"id", "submitter",
    "authors", "title", "comments", "journal-ref", "doi", "report-no", "categories", "license",
    "abstract", "versions": [{"version", "created"}], "update_date", "authors_parsed"}``, the
    field names, shapes and date forms of the snapshot (RFC 2822 times for versions; see the
    bundled data/arxiv/kaggle file). Collaborations are authors with the group as keyname.
    """
    people = [a for a in paper.authors if a.researcher >= 0]
    return {
        "id": paper.arxiv_id,
        "submitter": people[0].name if people else "",
        "authors": ", ".join(a.name for a in paper.authors),
        "title": paper.title,
        "comments": None,
        "journal-ref": None,
        "doi": None,
        "report-no": None,
        "categories": " ".join(paper.categories),
        "license": paper.license or None,
        "abstract": paper.abstract,
        "versions": [
            {"version": f"v{n}", "created": format_datetime(at, usegmt=True)}
            for n, at in enumerate(paper.versions, start=1)
        ],
        "update_date": paper.versions[-1].date().isoformat(),
        "authors_parsed": [
            [a.keyname, a.forenames, ""] if a.researcher >= 0 else [a.name, "", ""] for a in paper.authors
        ],
    }


def corpus_write_kaggle(
    path: Path,
    *,
    papers: int,
    seed: int = 1,
    shape: SampleShape | None = None,
    progress: Callable[[int], None] | None = None,
) -> int:
    """Write the corpus :func:`corpus_generate` would make for ``(papers, seed)`` as a Kaggle
    metadata snapshot (JSON Lines, :func:`kaggle_line`) at ``path``, for the real entry point
    (``harvest_arxiv --kaggle``) at scale (issue 29). Needs no database; affiliations are not
    in the snapshot's format. Returns the number of lines written."""
    generator = CorpusGenerator(shape=shape or sample_shape(), papers=papers, seed=seed, institutions=0)
    written = 0
    with open(path, "w", encoding="utf-8") as out:
        for paper in generator:
            out.write(json.dumps(kaggle_line(paper), ensure_ascii=False) + "\n")
            written += 1
            if progress and written % 1000 == 0:
                progress(1000)
    if progress and written % 1000:
        progress(written % 1000)
    return written
