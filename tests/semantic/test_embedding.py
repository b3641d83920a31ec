"""Embedding runs are idempotent: only new or changed papers reach the model."""

from __future__ import annotations

import numpy as np
from django.db import connection

from papers.models import Paper
from semantic import services
from semantic.models import PaperEmbedding
from semantic.texts import paper_text


class CountingEmbedder:
    """The real model, counting the texts it is asked to embed."""

    def __init__(self, inner):
        self.inner = inner
        self.name = inner.name
        self.texts: list[str] = []

    def embed_passages(self, texts):
        self.texts.extend(texts)
        return self.inner.embed_passages(texts)

    def embed_query(self, text):
        return self.inner.embed_query(text)


def _stored_norm(paper_id: int) -> float:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT vector_norm(embedding), vector_dims(embedding) FROM semantic_paperembedding "
            "WHERE paper_id = %s",
            [paper_id],
        )
        norm, dims = cursor.fetchone()
    assert dims == 384
    return norm


def test_embeds_new_papers_only_and_is_idempotent(semantic_ready, tiny_papers):
    model = CountingEmbedder(semantic_ready)
    first = services.embeddings_update(embedder=model, batch_size=4)
    assert (first.embedded, first.unchanged, first.skipped) == (6, 0, 0)
    assert len(model.texts) == 6  # two batches: 4 + 2
    assert model.texts[0] == (
        "Extrasolar planet discovered by transit photometry. "
        "We report a hot Jupiter that transits a bright nearby star every three days."
    )
    assert PaperEmbedding.objects.count() == 6
    assert abs(_stored_norm(tiny_papers["0000.00001"].pk) - 1.0) < 1e-3  # normalised vectors

    again = services.embeddings_update(embedder=model)
    assert (again.embedded, again.unchanged) == (0, 6)
    assert len(model.texts) == 6  # the model was not called again

    new = Paper.objects.create(
        arxiv_id="0000.00007", slug="x", title="Dark matter halos", abstract="Cold dark matter halo profiles."
    )
    third = services.embeddings_update(embedder=model)
    assert (third.embedded, third.unchanged) == (1, 6)
    assert model.texts[-1] == "Dark matter halos. Cold dark matter halo profiles."

    # A changed abstract is embedded again; its row is updated in place.
    Paper.objects.filter(pk=new.pk).update(abstract="Density profiles of simulated halos.")
    fourth = services.embeddings_update(embedder=model)
    assert (fourth.embedded, fourth.unchanged) == (1, 6)
    assert PaperEmbedding.objects.count() == 7


def test_empty_text_is_skipped_not_fatal(semantic_ready, db):
    Paper.objects.create(arxiv_id="0000.00009", slug="x", title="", abstract="")
    ok = Paper.objects.create(arxiv_id="0000.00010", slug="y", title="Spin glasses", abstract="")
    result = services.embeddings_update()
    assert (result.embedded, result.skipped) == (1, 1)
    assert list(PaperEmbedding.objects.values_list("paper_id", flat=True)) == [ok.pk]


def test_embed_papers_command_and_task(semantic_ready, tiny_papers):
    from io import StringIO

    from django.core.management import call_command

    from semantic.tasks import embed_papers

    out = StringIO()
    call_command("embed_papers", "--no-progress", stdout=out)
    assert out.getvalue().startswith("embed_papers: 6 embedded, 0 already current, 0 skipped")
    # The stage's task finds nothing waiting: the six vectors are newer than the papers.
    assert embed_papers.run() | {"seconds": 0} == {
        "status": "ok",
        "available": True,
        "embedded": 0,
        "unchanged": 0,
        "skipped": 0,
        "removed": 0,
        "seconds": 0,
        "reason": "",
    }


def test_a_paper_changed_elsewhere_leaves_the_backlog_without_a_new_vector(semantic_ready, tiny_papers):
    # Before issue 29 such a paper stayed in the stage's backlog for good (its vector kept an
    # older embedded_at than the paper's modified_at), read again at every sweep.
    from django.utils import timezone

    services.embeddings_update()
    paper = tiny_papers["0000.00003"]
    Paper.objects.filter(pk=paper.pk).update(cited_by_count=12, modified_at=timezone.now())
    assert services.embeddings_backlog().waiting == 1
    result = services.embeddings_update(pending_only=True)
    assert (result.embedded, result.unchanged) == (0, 1)
    assert services.embeddings_backlog().waiting == 0


def test_stored_vectors_are_the_models_float32_values_exactly(semantic_ready, tiny_papers):
    # The text sent to pgvector carries 9 significant digits: every float32 comes back bit for
    # bit (7 digits, before, changed the last bit of about a third of them).
    services.embeddings_update(embedder=semantic_ready)
    paper = tiny_papers["0000.00001"]
    wanted = semantic_ready.embed_passages([paper_text(title=paper.title, abstract=paper.abstract)])[0]
    with connection.cursor() as cursor:
        cursor.execute("SELECT embedding::text FROM semantic_paperembedding WHERE paper_id = %s", [paper.pk])
        stored = np.array(cursor.fetchone()[0].strip("[]").split(","), dtype=np.float32)
    assert stored.shape == (384,)
    assert np.array_equal(stored, wanted)


class ShortVectorEmbedder(CountingEmbedder):
    """The real model, except that one paper's vector comes back a number short (a broken
    model or backend): 383 values where pgvector's column holds 384."""

    def __init__(self, inner, short_text: str):
        super().__init__(inner)
        self.short_text = short_text

    def embed_passages(self, texts):
        vectors = [list(v) for v in super().embed_passages(texts)]
        return [v[:-1] if t == self.short_text else v for t, v in zip(texts, vectors, strict=True)]


def test_a_vector_of_the_wrong_length_skips_its_paper_not_the_batch(semantic_ready, tiny_papers):
    # The literal is formatted for exactly 384 values, so the short vector fails in the
    # stage's own retry (paper by paper) and only its paper is skipped; before, pgvector
    # refused the whole batch's INSERT and the stage failed.
    bad = tiny_papers["0000.00001"]
    model = ShortVectorEmbedder(semantic_ready, paper_text(title=bad.title, abstract=bad.abstract))
    result = services.embeddings_update(embedder=model, batch_size=4)
    assert (result.embedded, result.skipped) == (5, 1)
    stored = set(PaperEmbedding.objects.values_list("paper_id", flat=True))
    assert stored == {p.pk for p in tiny_papers.values()} - {bad.pk}
