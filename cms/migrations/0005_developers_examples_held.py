"""The developers' page examples name records the archive holds, chosen when the page
renders (issue 32: the batch example's physics/0112006 was a 404 on the bundled sample):
identifiers become the placeholders ``papers.examples.CODE_PLACEHOLDERS`` fills in. The
code block's help text says so to editors. Pages made by 0002 and 0003 are rewritten;
edited text is left."""

import json

import wagtail.fields
from django.db import migrations

# (old text, new text) as they stand in the code of the page's code blocks.
REPLACEMENTS = [
    ("/api/v1/papers/arXiv:0801.4566v2'", "/api/v1/papers/arXiv:{paper}v1'"),
    ("/api/v1/researchers?q=strominger'", "/api/v1/researchers?q={researcher_query}'"),
    ('"ids": ["0801.4566", "physics/0112006"]', '"ids": ["{paper}", "{other_paper}"]'),
]


def rewrite(apps, schema_editor):
    DevelopersPage = apps.get_model("cms", "DevelopersPage")
    for page in DevelopersPage.objects.all():
        raw = json.dumps(page.body.get_prep_value())
        text = raw
        for old, new in REPLACEMENTS:
            text = text.replace(json.dumps(old)[1:-1], json.dumps(new)[1:-1])
        if text != raw:
            DevelopersPage.objects.filter(pk=page.pk).update(body=text)


class Migration(migrations.Migration):
    dependencies = [("cms", "0004_privacy_wording")]

    operations = [
        migrations.AlterField(
            model_name="contentpage",
            name="body",
            field=wagtail.fields.StreamField([('heading', 0), ('paragraph', 1), ('code', 5), ('callout', 7)], blank=True, block_lookup={0: ('wagtail.blocks.CharBlock', (), {'form_classname': 'title', 'icon': 'title', 'template': 'cms/blocks/heading.html'}), 1: ('wagtail.blocks.RichTextBlock', (), {'features': ['h3', 'bold', 'italic', 'link', 'ol', 'ul', 'code', 'blockquote'], 'icon': 'pilcrow'}), 2: ('wagtail.blocks.ChoiceBlock', [], {'choices': [('shell', 'Shell'), ('http', 'HTTP'), ('json', 'JSON'), ('python', 'Python'), ('text', 'Text')]}), 3: ('wagtail.blocks.CharBlock', (), {'required': False}), 4: ('wagtail.blocks.TextBlock', (), {'help_text': "Write {site} for this site's address, and {paper}, {other_paper}, {researcher_query}, {ror_id} or {pith} for a record the archive holds (filled in when the page is shown)."}), 5: ('wagtail.blocks.StructBlock', [[('language', 2), ('caption', 3), ('code', 4)]], {}), 6: ('wagtail.blocks.RichTextBlock', (), {'features': ['bold', 'italic', 'link', 'code']}), 7: ('wagtail.blocks.StructBlock', [[('title', 3), ('text', 6)]], {})}),
        ),
        migrations.RunPython(rewrite, migrations.RunPython.noop),
    ]
