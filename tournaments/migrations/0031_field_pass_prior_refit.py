"""The field pass's prior is 500 Elo, not 350 (issue 47; ``skill.FIELD_PRIOR_DEVIATION``).

A game's pass is skipped while nothing new was rated since the last one, so the field views
stored under the old prior would stay until the game's next rated match. Forgetting what
each game's last pass saw makes the next beat refit every rated game under the new prior;
the stored views stay shown until then.
"""

from typing import Any

from django.db import migrations


def forget_what_the_passes_saw(apps: Any, schema_editor: Any) -> None:
    apps.get_model("tournaments", "FieldPass").objects.update(bots=0, matches=0)


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0030_match_filter_sets"),
    ]

    operations = [
        migrations.RunPython(forget_what_the_passes_saw, migrations.RunPython.noop),
    ]
