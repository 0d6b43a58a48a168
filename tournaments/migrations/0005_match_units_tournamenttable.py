"""Match.units (the comparison units, stored with the result) and the cached fit.

Finished matches get their units from the results already stored (tournaments.rating.model.units).
"""

from typing import Any

import django.db.models.deletion
from django.db import migrations, models


def fill_units(apps: Any, schema_editor: Any) -> None:
    from tournaments.rating.model.units import fill_missing

    fill_missing(apps.get_model("tournaments", "Match"))


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0004_match_dispatch"),
    ]

    operations = [
        migrations.AddField(
            model_name="match",
            name="units",
            field=models.TextField(blank=True, default=""),
        ),
        migrations.CreateModel(
            name="TournamentTable",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("done", models.PositiveIntegerField()),
                ("rows", models.JSONField(default=list)),
                ("head_to_head", models.JSONField(default=list)),
                ("updated_at", models.DateTimeField(auto_now=True)),
                (
                    "tournament",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="table",
                        to="tournaments.tournament",
                    ),
                ),
            ],
        ),
        migrations.RunPython(fill_units, migrations.RunPython.noop),
    ]
