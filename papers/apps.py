"""Django app config for papers."""

from django.apps import AppConfig


class PapersConfig(AppConfig):
    """Papers harvested from arXiv."""

    name = "papers"
    verbose_name = "Papers"
