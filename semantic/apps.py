"""Django app config for semantic search."""

from django.apps import AppConfig


class SemanticConfig(AppConfig):
    """Paper embeddings (pgvector), hybrid search and similar papers."""

    name = "semantic"
    verbose_name = "Semantic search"
