"""Django app config for researchers."""

from django.apps import AppConfig


class ResearchersConfig(AppConfig):
    """The researchers app."""

    name = "researchers"
    verbose_name = "Researchers"
