"""What institutions does when apps below it report or ask something (connected in ``apps.ready``):
signal receivers, and the institutions-by-year block of a researcher's page."""

from __future__ import annotations

from django.dispatch import receiver

from researchers.blocks import INSTITUTIONS, ResearcherBlock, researcher_block_register
from researchers.evidence import evidence_institutions_register
from researchers.signals import source_authors_aligned

from .selectors import (
    institution_year_rows_many,
    institution_years,
    slot_institution_names,
)
from .services import affiliations_from_source_authors

# Researchers may not import institutions: the researcher page, API answer and summary ask
# researchers.blocks for the institutions a researcher was seen at, and get them from here.
researcher_block_register(
    INSTITUTIONS,
    ResearcherBlock(rows_many=institution_year_rows_many, items=institution_years),
)
# The institution evidence of an authorship (issue 20): shared ROR institutions of its slots.
evidence_institutions_register(slot_institution_names)


@receiver(source_authors_aligned, dispatch_uid="institutions.link_source_affiliations")
def link_source_affiliations(sender, *, source: str, slots, **kwargs) -> None:
    """Link the institutions a registry gave for the authors the matcher just aligned."""
    affiliations_from_source_authors(source=source, slots=slots)
