"""The ORCID iD a user proved by signing in with ORCID (allauth's ``SocialAccount``)."""

from __future__ import annotations

from allauth.socialaccount.models import SocialAccount

from researchers.orcid import orcid_or_none


def verified_orcid(user) -> str | None:
    """The iD ``user`` proved by ORCID sign-in or linking (``SocialAccount.uid`` of provider
    ``orcid``, normalised: ``0000-0002-1825-0097``), else ``None`` (anonymous, never signed
    in with ORCID, or a uid that is not an iD). One query."""
    if user is None or not user.is_authenticated:
        return None
    uid = SocialAccount.objects.filter(user=user, provider="orcid").values_list("uid", flat=True).first()
    return orcid_or_none(uid)
