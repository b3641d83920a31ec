"""Django app config for provenance."""

from django.apps import AppConfig


class ProvenanceConfig(AppConfig):
    """The provenance app."""

    name = "provenance"
    verbose_name = "Provenance"
