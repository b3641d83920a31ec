"""wovepaper project package: settings, URLs, the Celery app and small shared helpers."""

from .celery import app as celery_app

__all__ = ["celery_app"]
