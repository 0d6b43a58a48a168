"""The field pass reads the one rating of issue 47: the field's own spread counted, the
information read from the results, Firth's bias-reduced fit, every bot on the pooled
dispersion (``field_dispersion``; docs/ratings.md, "The one rating switched on").

The pass now stores the scales of its fit's bias reduction (``FieldPass.bias_scale``,
``posterior_scale``), so that a page fitting on the spot fits as it did. As in 0031, a
game's pass is skipped while nothing new was rated since its last one, so
the views stored under the old settings would stay until the game's next rated match:
forgetting what each game's last pass saw makes the next beat refit every rated game. The
stored views stay shown until then.
"""

from typing import Any

from django.db import migrations, models


def forget_what_the_passes_saw(apps: Any, schema_editor: Any) -> None:
    apps.get_model("tournaments", "FieldPass").objects.update(bots=0, matches=0)


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0032_field_pass_spread"),
    ]

    operations = [
        migrations.AddField(
            model_name="fieldpass",
            name="bias_scale",
            field=models.FloatField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="fieldpass",
            name="posterior_scale",
            field=models.FloatField(blank=True, null=True),
        ),
        migrations.RunPython(forget_what_the_passes_saw, migrations.RunPython.noop),
    ]
