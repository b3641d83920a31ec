# The check apart from 0007: PostgreSQL refuses ALTER TABLE in the transaction whose UPDATE
# left foreign-key checks pending ("pending trigger events").

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("institutions", "0007_author_affiliation_resolution"),
    ]

    operations = [
        migrations.AddConstraint(
            model_name='authoraffiliation',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('matched_institution__isnull', True), ('resolution', '')), models.Q(('matched_institution', models.F('institution')), ('resolution', 'direct')), models.Q(('matched_institution__isnull', False), ('resolution', 'via-successor'), models.Q(('matched_institution', models.F('institution')), _negated=True)), _connector='OR'), name='authoraffiliation_resolution_matches'),
        ),
    ]
