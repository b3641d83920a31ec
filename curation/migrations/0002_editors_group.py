"""Data migration: the ``Editors`` group with exactly the permissions curation needs."""

from django.contrib.auth.management import create_permissions
from django.db import migrations

# Kept here (not imported from curation.permissions) so the migration never changes meaning.
EDITOR_PERMISSIONS = [
    ("researchers", "view_researcher"),
    ("curation", "view_curationrecord"),
    ("curation", "view_pairdecision"),
    ("curation", "curate_researchers"),
]


def editors_create(apps, schema_editor):
    # Permissions are normally created after all migrations (post_migrate); create the ones
    # of these two apps now so the group can hold them on a fresh database.
    for label in ("researchers", "curation"):
        config = apps.get_app_config(label)
        config.models_module = True
        create_permissions(config, apps=apps, verbosity=0)
        config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group, _ = Group.objects.get_or_create(name="Editors")
    wanted = [
        Permission.objects.get(content_type__app_label=app, codename=codename) for app, codename in EDITOR_PERMISSIONS
    ]
    group.permissions.set(wanted)


def editors_remove(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name="Editors").delete()


class Migration(migrations.Migration):
    dependencies = [
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("researchers", "0001_initial"),
        ("curation", "0001_initial"),
    ]

    operations = [migrations.RunPython(editors_create, editors_remove)]
