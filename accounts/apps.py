"""Django app config for accounts."""

from django.apps import AppConfig

from curation import signals


class AccountsConfig(AppConfig):
    """Follows, notification settings, private feeds and digests of signed-up readers."""

    name = "accounts"
    # allauth's e-mail addresses app is titled "Accounts" in the admin too: two sections of
    # one name (issue 32). Ours holds what readers follow and the digests they get.
    verbose_name = "Follows and digests"

    def ready(self) -> None:
        # Curation sends these and never imports accounts (it is the layer below); receivers
        # import models, so they load once the app registry is ready.
        from . import receivers

        signals.researchers_merged.connect(
            receivers.follows_move_on_merge, dispatch_uid="accounts_follows_merge"
        )
        signals.researcher_split_done.connect(
            receivers.follows_note_on_split, dispatch_uid="accounts_follows_split"
        )
        signals.curation_undone.connect(
            receivers.follows_restore_on_undo, dispatch_uid="accounts_follows_undo"
        )
