"""The synthetic corpus app: benchmark data and the archive's summary line (issue 17)."""

from django.apps import AppConfig


class CorpusConfig(AppConfig):
    """Holds the ``generate_corpus`` and ``archive_summary`` commands; no models."""

    name = "corpus"
    verbose_name = "Synthetic corpus"
