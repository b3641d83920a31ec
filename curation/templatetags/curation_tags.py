"""Template tags: the curation history of a researcher (for the public researcher page), and
the desk's links from a queue to the merge comparison and back."""

from urllib.parse import urlencode

from django import template
from django.urls import reverse

from ..selectors import curation_history

register = template.Library()


@register.simple_tag
def curation_history_for(researcher) -> list:
    """``{% curation_history_for researcher as history %}``: the latest curation records
    (see :func:`curation.selectors.curation_history`); ``[]`` without a researcher."""
    if researcher is None or getattr(researcher, "pk", None) is None:
        return []
    return curation_history(researcher)


@register.simple_tag(takes_context=True)
def desk_here(context, row: int | str = "") -> str:
    """``{% desk_here row=forloop.counter %}``: this page's path and query string with the
    anchor ``#row-<row>`` (an element of the page's row ``n`` with ``id="row-<n>"``; the
    same-name queue puts it on the row's Compare link): the ``next`` a desk link or
    form carries so the editor comes back to this page, at this row. Needs ``request`` in
    the context (the admin has it)."""
    path = context["request"].get_full_path()
    return f"{path}#row-{row}" if row != "" else path


@register.simple_tag(takes_context=True)
def desk_compare_url(context, *researcher_ids, row: int | str = "") -> str:
    """``{% desk_compare_url a.pk b.pk row=forloop.counter %}``: the merge comparison of
    ``researcher_ids`` (``/admin/curation/merge/?ids=a,b&next=...``) that comes back to
    :func:`desk_here` after Cancel, a merge or a "not the same person" decision (the contract
    is on :func:`curation.views.merge_confirm`)."""
    ids = ",".join(str(int(i)) for i in researcher_ids)
    return (
        f"{reverse('curation:merge')}?{urlencode({'ids': ids, 'next': desk_here(context, row)}, safe=',/')}"
    )
