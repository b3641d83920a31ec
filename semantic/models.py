"""One stored embedding per paper; the pgvector column is managed outside the ORM (see schema.py)."""

from __future__ import annotations

from django.db import models


class PaperEmbedding(models.Model):
    """The sentence embedding of one paper's title and abstract.

    The vector itself lives in the column ``embedding vector(384)`` with an HNSW index
    (cosine). That column exists only where the pgvector extension is installed, so it is not
    a Django field: ``semantic.schema`` adds it and ``semantic.services`` reads and writes it
    with SQL. Without pgvector this table stays empty and search falls back to keywords.

    ``text_hash`` is the SHA-256 of the embedded text together with ``model``: a paper whose
    title/abstract changed, or a switch of model, is embedded again; an unchanged one never.
    """

    paper = models.OneToOneField(
        "papers.Paper", on_delete=models.CASCADE, primary_key=True, related_name="embedding"
    )
    model = models.CharField(max_length=100, help_text="Embedding model that produced the vector")
    text_hash = models.CharField(max_length=64, help_text="sha256(model + embedded text), hex")
    embedded_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "paper embedding"

    def __str__(self) -> str:
        return f"embedding of paper {self.paper_id} ({self.model})"
