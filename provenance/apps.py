"""Django app config for provenance."""

from django.apps import AppConfig


class ProvenanceConfig(AppConfig):
    """The provenance app."""

    name = "provenance"
    verbose_name = "Provenance"

    def ready(self) -> None:
        # The 404 page, llms.txt and /developers (papers and pages) name a pith held here;
        # selectors import models, so they load once the app registry is ready.
        from papers.examples import url_example_register

        from . import selectors

        url_example_register("pith", selectors.pith_example)
