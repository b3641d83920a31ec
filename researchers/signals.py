"""Signals the researchers app sends, for apps above it (institutions) to act on."""

from django.dispatch import Signal

# Sent by :func:`researchers.matching_sources.researchers_attach_from_source` inside its transaction,
# once per registry record, after aligning it with the paper's unmatched slots. Arguments:
# ``source`` (an ``IdentitySource`` value) and ``slots``, a list of ``(PaperAuthor id,
# SourceAuthor)`` pairs, so institutions can link the affiliations the registry gives.
source_authors_aligned = Signal()
