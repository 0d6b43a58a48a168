"""Where the field pass counts the field's own spread (``field_dispersion.COUNT_SPREAD``,
an experiment when this was written, on since 0033; ``rating.model.field_spread``), it
stores it, so that the pages' own comparisons count it as the pass's deviations do
(``FieldPass.spread``; null where it is off: the deviations count the prior's 500).
"""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0031_field_pass_prior_refit"),
    ]

    operations = [
        migrations.AddField(
            model_name="fieldpass",
            name="spread",
            field=models.FloatField(blank=True, null=True),
        ),
    ]
