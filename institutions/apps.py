"""Django app config for institutions."""

from django.apps import AppConfig


class InstitutionsConfig(AppConfig):
    """The institutions app."""

    name = "institutions"
    verbose_name = "Institutions"

    def ready(self) -> None:
        from . import receivers  # noqa: F401 - connects the signal receivers
