"""Django app config for institutions."""

from django.apps import AppConfig


class InstitutionsConfig(AppConfig):
    """The institutions app."""

    name = "institutions"
    verbose_name = "Institutions"

    def ready(self) -> None:
        from papers.examples import url_example_register

        from . import (
            receivers,  # noqa: F401 - connects the signal receivers
            selectors,
        )

        # The 404 page, llms.txt and /developers (papers and pages) name an institution held
        # here; selectors import models, so they load once the app registry is ready.
        url_example_register("institution", selectors.institution_example)
        # The search index holds each paper's institutions (the search page's facets).
        from papers.search_index import register_linked_ids

        register_linked_ids("institutions", selectors.PAPER_INSTITUTIONS_SQL)
