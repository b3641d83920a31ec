"""The public site's cross-entity pages: search, feeds, sitemaps, robots.txt, llms.txt."""

from django.apps import AppConfig


class PagesConfig(AppConfig):
    """Search, feeds and machine-readable files span papers, researchers and institutions, so
    no single domain app owns them; ``wove/`` stays settings and shared helpers."""

    name = "pages"
    default_auto_field = "django.db.models.BigAutoField"
