"""Django app config for researchers."""

from django.apps import AppConfig


class ResearchersConfig(AppConfig):
    """The researchers app."""

    name = "researchers"
    verbose_name = "Researchers"

    def ready(self) -> None:
        # The 404 page, llms.txt and /developers (papers and pages) name a researcher held here;
        # selectors import models, so they load once the app registry is ready.
        from papers.examples import url_example_register

        from . import selectors

        url_example_register("researcher", selectors.researcher_example)
        # The search index holds each paper's researchers (the search page's facets).
        from papers.search_index import register_linked_ids

        register_linked_ids("researchers", selectors.PAPER_RESEARCHERS_SQL)
