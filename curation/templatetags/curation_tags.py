"""Template tags: the curation history of a researcher (for the public researcher page)."""

from django import template

from ..selectors import curation_history

register = template.Library()


@register.simple_tag
def curation_history_for(researcher) -> list:
    """``{% curation_history_for researcher as history %}``: the latest curation records
    (see :func:`curation.selectors.curation_history`); ``[]`` without a researcher."""
    if researcher is None or getattr(researcher, "pk", None) is None:
        return []
    return curation_history(researcher)
