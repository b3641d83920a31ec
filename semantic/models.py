"""Stored embeddings, one per paper and model; the vector column is managed outside the ORM (schema.py)."""

from __future__ import annotations

from django.db import models


class PaperEmbedding(models.Model):
    """The sentence embedding of one paper's title and abstract by one model.

    The vector itself lives in the column ``embedding vector(384)`` with an HNSW index
    (cosine). That column exists only where the pgvector extension is installed, so it is not
    a Django field: ``semantic.schema`` adds it and ``semantic.services`` reads and writes it
    with SQL. Without pgvector this table stays empty and search falls back to keywords.

    A paper holds one row per model (issue 29): when ``SEMANTIC_MODEL`` changes, the
    embeddings stage writes the new model's rows beside the old ones while searches keep
    reading the model :class:`EmbeddingState` names, and switches when the new model covers
    every paper; the old rows are dropped after. Every query reads one model's rows.

    ``text_hash`` is the SHA-256 of the embedded text together with ``model``: a paper whose
    title/abstract changed is embedded again; an unchanged one never.
    """

    paper = models.ForeignKey(
        "papers.Paper",
        on_delete=models.CASCADE,
        related_name="embeddings",
        db_index=False,  # the unique (paper, model) index serves lookups by paper
    )
    model = models.CharField(max_length=100, help_text="Embedding model that produced the vector")
    text_hash = models.CharField(max_length=64, help_text="sha256(model + embedded text), hex")
    embedded_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "paper embedding"
        constraints = [
            models.UniqueConstraint(fields=["paper", "model"], name="semantic_embedding_paper_model"),
        ]

    def __str__(self) -> str:
        return f"embedding of paper {self.paper_id} ({self.model})"


class EmbeddingState(models.Model):
    """Which model's vectors searches read (one row, ``pk=1``).

    ``search_model`` stays the old model while the embeddings stage writes a new model's
    vectors, and becomes the new one in the stage run that finds no paper waiting for it
    (``switched_at``); rows of other models are deleted by a run at least
    ``semantic.search_model.SWITCH_GRACE`` seconds later, so a process that still reads the old
    name from its cache never finds its rows gone; ``switched_at`` is then cleared (no old rows
    left to look for).
    """

    search_model = models.CharField(max_length=100)
    switched_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = "embedding state"

    def __str__(self) -> str:
        return f"searches read {self.search_model}"
