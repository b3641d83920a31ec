"""Django app config for the project package: pipeline run rows, their admin and commands."""

from django.apps import AppConfig


class WoveConfig(AppConfig):
    """The project's own app: the pipeline's run log (:class:`wove.models.StageRun`), the
    "Pipeline" admin page and ``pipeline_status`` / ``run_pipeline``."""

    name = "wove"
    verbose_name = "Pipeline"

    def ready(self) -> None:
        # The composition module connects the harvest's signal to the pipeline's first stage.
        from . import pipeline

        pipeline.connect()
