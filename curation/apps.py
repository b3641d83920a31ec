"""Django app config for curation."""

from django.apps import AppConfig
from django.db.models.signals import post_migrate


def _editors_sync(sender, using="default", **kwargs) -> None:
    from .permissions import editors_group_sync

    editors_group_sync(using=using)


class CurationConfig(AppConfig):
    """Editor curation of researcher identities: merge, split, undo, same-name decisions."""

    name = "curation"
    verbose_name = "Curation"

    def ready(self) -> None:
        post_migrate.connect(_editors_sync, sender=self, dispatch_uid="curation_editors_sync")
