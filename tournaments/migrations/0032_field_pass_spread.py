"""Where the field pass counts the field's own spread (the experiment
``field_dispersion.COUNT_SPREAD``, off; ``rating.model.field_spread``), it stores it, so that
the pages' own comparisons count it as the pass's deviations do (``FieldPass.spread``;
null while the experiment is off: the deviations count the prior's 500).
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
