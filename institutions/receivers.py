"""What institutions does when apps below it report something (connected in ``apps.ready``)."""

from __future__ import annotations

from django.dispatch import receiver

from researchers.signals import source_authors_aligned

from .services import affiliations_from_source_authors


@receiver(source_authors_aligned, dispatch_uid="institutions.link_source_affiliations")
def link_source_affiliations(sender, *, source: str, slots, **kwargs) -> None:
    """Link the institutions a registry gave for the authors the matcher just aligned."""
    affiliations_from_source_authors(source=source, slots=slots)
