"""Django app config for curation."""

from django.apps import AppConfig
from django.db.models.signals import post_migrate


class CurationConfig(AppConfig):
    """Editor curation of researcher identities: merge, split, undo, same-name decisions."""

    name = "curation"
    verbose_name = "Curation"

    def ready(self) -> None:
        # Imported here: permissions imports curation's models, which need the app registry.
        from .permissions import editors_group_sync_after_migrate

        post_migrate.connect(
            editors_group_sync_after_migrate, sender=self, dispatch_uid="curation_editors_sync"
        )
