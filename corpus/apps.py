"""Django app config for the synthetic corpus (its management commands)."""

from django.apps import AppConfig


class CorpusConfig(AppConfig):
    """Synthetic arXiv-shaped corpora for scale work and the archive's summary line: a tool
    above every app (it writes papers, researchers and affiliations), with no models."""

    name = "corpus"
    verbose_name = "Synthetic corpus"
