"""Django app config for accounts."""

from django.apps import AppConfig


class AccountsConfig(AppConfig):
    """Follows, notification settings, private feeds and digests of signed-up readers."""

    name = "accounts"
    verbose_name = "Accounts"
