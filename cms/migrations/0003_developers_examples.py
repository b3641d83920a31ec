"""The developers' page examples call the instance being read (``{site}``, see the
``with_site_url`` filter) with identifiers from the bundled sample, and name the real rate
limit headers. Pages made by 0002 before this change are rewritten; edited text is left."""

import json

from django.db import migrations

# (old text, new text) as they stand in the StreamField JSON.
REPLACEMENTS = [
    ("https://www.wovepaper.com", "{site}"),
    ("/api/v1/papers/2401.10241'", "/api/v1/papers/arXiv:0801.4566v2'"),
    ("?q=%22pipeline+parallelism%22&sort=relevance&size=5", "?q=%22dark+matter%22&sort=relevance&size=5"),
    ("/api/v1/researchers/2270251'", "/api/v1/researchers?q=strominger'"),
    ("A researcher and their identities", "Researchers by name, with their identities"),
    ('[\\"2401.10241\\", \\"hep-th/9711200\\"]', '[\\"0801.4566\\", \\"physics/0112006\\"]'),
    (
        "<code>RateLimit</code> headers",
        "<code>X-RateLimit-Limit</code>, <code>-Remaining</code> and <code>-Reset</code> headers",
    ),
]


def rewrite(apps, schema_editor):
    DevelopersPage = apps.get_model("cms", "DevelopersPage")
    for page in DevelopersPage.objects.all():
        raw = json.dumps(page.body.get_prep_value())
        text = raw
        for old, new in REPLACEMENTS:
            text = text.replace(old, new)
        if text != raw:
            DevelopersPage.objects.filter(pk=page.pk).update(body=text)


class Migration(migrations.Migration):
    dependencies = [("cms", "0002_site_pages")]

    operations = [migrations.RunPython(rewrite, migrations.RunPython.noop)]
