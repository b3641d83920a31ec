"""The ORCID provider allauth registers (``SOCIALACCOUNT_PROVIDERS["orcid"]["provider_class"]``)."""

from __future__ import annotations

from allauth.socialaccount.providers.orcid.provider import OrcidProvider as BaseOrcidProvider

from researchers.orcid import orcid_or_none

from .views import OrcidOAuth2Adapter


class OrcidProvider(BaseOrcidProvider):
    """allauth's ORCID provider with :class:`~accounts.orcid.adapter.OrcidOAuth2Adapter`.

    ``package`` names where allauth finds its URLs (``accounts.orcid.urls``: the login and
    callback views bound to our adapter). The uid (the ``SocialAccount.uid`` of provider
    ``orcid``) is the record's ``orcid-identifier.path`` in stored form
    (``0000-0002-1825-0097``, :func:`researchers.orcid.normalize_orcid`), so it compares
    with researchers' iDs as it is.
    """

    package = "accounts.orcid"
    oauth2_adapter_class = OrcidOAuth2Adapter

    def extract_uid(self, data: dict) -> str:
        """The record's iD, normalised; the raw value when it is not an iD (allauth then
        stores what ORCID said, and claims never read it as proof)."""
        raw = str(super().extract_uid(data))
        return orcid_or_none(raw) or raw
