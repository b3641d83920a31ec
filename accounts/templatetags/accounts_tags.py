"""Template tags for accounts: the state of the Follow button."""

from __future__ import annotations

from typing import Any

from django import template
from django.conf import settings

from ..selectors import follow_exists, kind_of

register = template.Library()


@register.simple_tag(takes_context=True)
def follow_state(context: template.Context, obj: Any) -> dict[str, Any]:
    """``{"kind", "key", "following", "signed_in", "next"}`` for the Follow button of ``obj``
    (a researcher, institution or category); ``following`` is False for anonymous visitors."""
    request = context.get("request")
    user = getattr(request, "user", None)
    signed_in = bool(user and user.is_authenticated)
    return {
        "kind": kind_of(obj),
        "key": str(obj.pk),
        "following": signed_in and follow_exists(user.pk, obj),
        "signed_in": signed_in,
        "next": request.get_full_path() if request else "/",
    }


# Django's console backend: mail is printed on the standard output of the process that sends
# it, the terminal running `make run` on a local install (settings.EMAIL_BACKEND's default
# when EMAIL_HOST is unset).
CONSOLE_BACKEND = "django.core.mail.backends.console.EmailBackend"


@register.simple_tag
def mail_goes_to_console() -> bool:
    """Whether e-mail (the sign-up link, password resets) is printed to the console instead
    of sent: true on a local install without ``EMAIL_HOST`` (``settings.EMAIL_BACKEND``)."""
    return settings.EMAIL_BACKEND == CONSOLE_BACKEND
