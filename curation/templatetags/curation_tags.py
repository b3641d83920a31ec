"""Template tags: the curation history and the claim of a researcher (for the public
researcher page), and the desk's links from a queue to the merge comparison and back."""

from urllib.parse import urlencode

from django import template
from django.contrib.postgres.fields import ArrayField
from django.db.models import BigIntegerField, Exists, Func, OuterRef, Q, QuerySet
from django.urls import reverse

from researchers.models import Researcher
from wove.compiled import CompiledQuery

from ..claims import claim_owner
from ..models import CurationRecord, ResearcherClaim
from ..names import display_name_chosen
from ..selectors import curation_history

register = template.Library()


def _curation_presence(researcher) -> tuple[bool, bool]:
    """``(claimed, curated)``: whether any claim (of any status) is on ``researcher`` or on a
    record merged into it, and whether any curation record involves it. One query, kept on
    the researcher object for the page's other tag: most researchers have neither, and their
    page then skips the claim's and the history's own queries (issue 28)."""
    presence = getattr(researcher, "_curation_presence", None)
    if presence is None:
        rows = CURATION_PRESENCE.values(researcher.pk)
        row = (rows[0]["claimed"], rows[0]["curated"]) if rows else None
        presence = researcher._curation_presence = row or (False, False)
    return presence


def _curation_presence_of(pk: int) -> QuerySet[Researcher]:
    claims = ResearcherClaim.objects.filter(
        Q(researcher_id=OuterRef("pk")) | Q(researcher__merged_into_id=OuterRef("pk"))
    )
    # CurationRecord.objects.for_researcher(pk) with the outer row's id (ARRAY[id]: the GIN
    # index's containment), so that the id is the query's one parameter.
    involved = Func(
        OuterRef("pk"),
        template="ARRAY[%(expressions)s]::bigint[]",
        output_field=ArrayField(BigIntegerField()),
    )
    records = CurationRecord.objects.filter(researcher_ids__contains=involved)
    return (
        Researcher.objects.filter(pk=pk)
        .annotate(claimed=Exists(claims), curated=Exists(records))
        .order_by()
        .values("claimed", "curated")[:1]
    )


# Every researcher page asks: its SQL written once per process (wove.compiled; issue 28: it
# took the ORM longer than PostgreSQL). A researcher id is never negative.
CURATION_PRESENCE = CompiledQuery(_curation_presence_of, sentinel=-1)


@register.simple_tag
def curation_history_for(researcher) -> list:
    """``{% curation_history_for researcher as history %}``: the latest curation records
    (see :func:`curation.selectors.curation_history`); ``[]`` without a researcher, or
    without a record (:func:`_curation_presence`)."""
    if researcher is None or getattr(researcher, "pk", None) is None:
        return []
    if not _curation_presence(researcher)[1]:
        return []
    return curation_history(researcher)


@register.simple_tag(takes_context=True)
def researcher_claim_for(context, researcher) -> dict:
    """``{% researcher_claim_for researcher as claim %}`` (issue 31): ``{"owner": the approved
    ResearcherClaim or None, "mine": the signed-in user owns it, "waiting": the user's claim
    is pending, "display_chosen": the owner chose the display name shown
    (:func:`curation.names.display_name_chosen`)}``. One query (:func:`_curation_presence`,
    shared with the history) for a record no claim was ever made on; two more of a claimed
    one; one more for a signed-in user."""
    nothing = {"owner": None, "mine": False, "waiting": False, "display_chosen": False}
    if researcher is None or getattr(researcher, "pk", None) is None:
        return nothing
    if not _curation_presence(researcher)[0]:
        return nothing
    owner = claim_owner(researcher.pk)
    request = context.get("request")
    user = getattr(request, "user", None)
    signed_in = bool(user is not None and user.is_authenticated)
    waiting = (
        signed_in
        and owner is None
        and ResearcherClaim.objects.filter(
            researcher_id=researcher.pk, user=user, status=ResearcherClaim.Status.PENDING
        ).exists()
    )
    return {
        "owner": owner,
        "mine": bool(signed_in and owner and owner.user_id == user.pk),
        "waiting": waiting,
        "display_chosen": bool(owner and display_name_chosen(researcher)),
    }


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
