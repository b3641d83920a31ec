"""How an account is named to its owner and to editors: its e-mail address, not the username."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser


def user_display(user: AbstractBaseUser) -> str:
    """The name shown for ``user`` (``settings.ACCOUNT_USER_DISPLAY``, so allauth's pages,
    messages and e-mails use it too): the full name when one is set (editors made in the
    admin), else the e-mail address, else the username. Sign-up asks only for an e-mail
    address; the username allauth derives from it ("newcomer" for newcomer@example.org) is
    never shown. Returns a plain string (templates escape it)."""
    full_name = getattr(user, "get_full_name", lambda: "")().strip()
    return full_name or getattr(user, "email", "") or user.get_username()
