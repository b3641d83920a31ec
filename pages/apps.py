"""The public site's cross-entity pages: search, feeds, sitemaps, robots.txt, llms.txt."""

from django.apps import AppConfig


class PagesConfig(AppConfig):
    """Search, feeds and machine-readable files span papers, researchers and institutions, so
    no single domain app owns them; ``wove/`` stays settings and shared helpers."""

    name = "pages"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The API's researcher list counts listed researchers from the kept archive facts
        # (issue 28); the researchers app may not import pages.
        from wove.counts import kept_count_register

        from .facts import archive_facts

        def researchers() -> int | None:
            facts = archive_facts()
            return None if facts is None else facts["researchers"]

        kept_count_register("researchers", researchers)
