"""generate_corpus --kaggle: the synthetic corpus as arXiv's Kaggle metadata snapshot, read
back through the real entry point (issue 29)."""

from __future__ import annotations

import io
import json
from email.utils import parsedate_to_datetime

from django.core.management import call_command

from corpus.synthetic import CorpusGenerator, sample_shape
from papers.models import Paper


def test_the_snapshot_harvests_into_the_papers_the_generator_makes(db, tmp_path):
    path = tmp_path / "snapshot.json"
    out = io.StringIO()
    call_command("generate_corpus", papers=40, seed=3, kaggle=str(path), no_progress=True, stdout=out)
    assert out.getvalue().startswith(f"wovepaper: 40 papers written to {path} as a Kaggle snapshot in ")
    assert Paper.objects.count() == 0  # nothing stored: a file for the harvester

    lines = [json.loads(line) for line in path.read_text().splitlines()]
    expected = list(CorpusGenerator(shape=sample_shape(), papers=40, seed=3, institutions=0))
    assert [line["id"] for line in lines] == [p.arxiv_id for p in expected]
    first, paper = lines[0], expected[0]
    # The snapshot's own forms: space-separated categories, RFC 2822 version times, the
    # authors as one string and parsed as [keyname, forenames, suffix].
    assert first["categories"] == " ".join(paper.categories)
    assert [parsedate_to_datetime(v["created"]) for v in first["versions"]] == paper.versions
    assert first["authors"] == ", ".join(a.name for a in paper.authors)
    assert first["authors_parsed"][0] == [paper.authors[0].keyname, paper.authors[0].forenames, ""]

    call_command("harvest_arxiv", kaggle=str(path), no_progress=True, stdout=io.StringIO())
    stored = {p.arxiv_id: p for p in Paper.objects.all()}
    assert len(stored) == 40
    for paper in expected:
        row = stored[paper.arxiv_id]
        assert (row.title, row.abstract) == (paper.title, paper.abstract)
        assert row.categories == list(paper.categories)
        assert row.submitted_at == paper.versions[0] and row.latest_version == len(paper.versions)
        assert [a.keyname for a in row.authors.order_by("position")] == [
            a.keyname if a.researcher >= 0 else a.name for a in paper.authors
        ]
