"""``/accounts/orcid/login/`` and ``/accounts/orcid/login/callback/``, bound to our adapter."""

from allauth.socialaccount.providers.oauth2.urls import default_urlpatterns

from .provider import OrcidProvider

urlpatterns = default_urlpatterns(OrcidProvider)
