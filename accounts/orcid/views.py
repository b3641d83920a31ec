"""allauth's ORCID OAuth 2 adapter with its hosts read from settings at each request, and its two views."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from allauth.socialaccount.adapter import get_adapter
from allauth.socialaccount.models import SocialApp
from allauth.socialaccount.providers.oauth2.views import OAuth2CallbackView, OAuth2LoginView
from allauth.socialaccount.providers.orcid.views import OrcidOAuth2Adapter as BaseOrcidOAuth2Adapter
from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse


class OrcidOAuth2Adapter(BaseOrcidOAuth2Adapter):
    """allauth's adapter (the three-legged OAuth 2 of ORCID's public API, scope
    ``/authenticate``), but its hosts come from ``ORCID_BASE_URL`` (the authorize page) and
    ``ORCID_API_BASE_URL`` (``/oauth/token`` and ``/v3.0/<iD>/record``) instead of the
    ``https://orcid.org`` allauth writes into the class when it is imported: tests point them
    at a stand-in on 127.0.0.1 (https://info.orcid.org/documentation/api-tutorials/
    api-tutorial-get-and-authenticated-orcid-id/)."""

    @property
    def authorize_url(self) -> str:
        return f"{settings.ORCID_BASE_URL}/oauth/authorize"

    @property
    def access_token_url(self) -> str:
        return f"{settings.ORCID_API_BASE_URL}/oauth/token"

    @property
    def profile_url(self) -> str:
        # allauth fills %s with the iD of the token response.
        return f"{settings.ORCID_API_BASE_URL}/v3.0/%s/record"


def orcid_configured(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """404 instead of allauth's 500 (``SocialApp.DoesNotExist``) when no ORCID client is
    configured (``ORCID_CLIENT_ID``/``ORCID_CLIENT_SECRET`` unset): the URLs exist either way."""

    @wraps(view)
    def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        try:
            get_adapter().get_app(request, provider=OrcidOAuth2Adapter.provider_id)
        except SocialApp.DoesNotExist as exc:
            raise Http404("ORCID sign-in is not configured here") from exc
        return view(request, *args, **kwargs)

    return wrapped


# The login view (POST: redirect to ORCID's authorize page) and the callback ORCID sends the
# browser back to with ``code`` and ``state``; allauth's URL builder looks them up by name.
oauth2_login = orcid_configured(OAuth2LoginView.adapter_view(OrcidOAuth2Adapter))
oauth2_callback = orcid_configured(OAuth2CallbackView.adapter_view(OrcidOAuth2Adapter))
