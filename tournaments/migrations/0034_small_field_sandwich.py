"""Small fields whose tables no matchmaker chose weigh in Firth's noise with its penalty
held fixed (issue 47; ``field_bias.sandwich_share``; docs/ratings.md, "Small fields weigh
in Firth's noise").

The pass stores the share its deviations took (``FieldPass.sandwich``), so that a page
fitting on the spot reads the deviations it did. As in 0033, forgetting what each game's
last pass saw makes the next beat refit every rated game under the new setting; the stored
views stay shown until then.
"""

from typing import Any

from django.db import migrations, models


def forget_what_the_passes_saw(apps: Any, schema_editor: Any) -> None:
    apps.get_model("tournaments", "FieldPass").objects.update(bots=0, matches=0)


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0033_one_rating_refit"),
    ]

    operations = [
        migrations.AddField(
            model_name="fieldpass",
            name="sandwich",
            field=models.FloatField(blank=True, null=True),
        ),
        migrations.RunPython(forget_what_the_passes_saw, migrations.RunPython.noop),
    ]
