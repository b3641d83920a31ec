"""The privacy page says when the CSRF cookie is set (on pages with a form, not only on
submit) and that digests are weekly until changed and never empty. Pages made by 0002
before this change are rewritten; edited text is left."""

import json

from django.db import migrations

REPLACEMENTS = [
    (
        "except a CSRF security cookie when you submit a form.</li>",
        "except a CSRF security cookie on pages with a form (the contact form, the offer to "
        "fetch a paper from arXiv), which protects what you submit.</li>",
    ),
    (
        "<li>your digest choice (daily, weekly or off) and when we last sent one;</li>",
        "<li>your digest choice (daily, weekly or off; weekly until you change it, and a digest "
        "is only sent when something you follow has new papers) and when we last sent one;</li>",
    ),
]


def rewrite(apps, schema_editor):
    ContentPage = apps.get_model("cms", "ContentPage")
    for page in ContentPage.objects.filter(slug="privacy"):
        raw = json.dumps(page.body.get_prep_value())
        text = raw
        for old, new in REPLACEMENTS:
            text = text.replace(json.dumps(old)[1:-1], json.dumps(new)[1:-1])
        if text != raw:
            ContentPage.objects.filter(pk=page.pk).update(body=text)


class Migration(migrations.Migration):
    dependencies = [("cms", "0003_developers_examples")]

    operations = [migrations.RunPython(rewrite, migrations.RunPython.noop)]
