"""The global rating fits each bot to its records (docs/ratings.md, "Global rating").

Adds RatingRecord (a bot's pairwise results against one opponent version, and its rating
when they last met); every rating, the rating history and the records are then
recomputed from the stored match history with the update that reads them (the same code
as ``manage.py recompute_ratings --write``).
"""

from typing import Any

import django.db.models.deletion
from django.db import migrations, models
from django.db.migrations.state import StateApps


def recompute(apps: StateApps, schema_editor: Any) -> None:
    from tournaments.rating.stored.recompute import recompute_and_store

    recompute_and_store(apps=apps)


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0011_rating_draw_share"),
    ]

    operations = [
        migrations.CreateModel(
            name="RatingRecord",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("results", models.FloatField()),
                ("score", models.FloatField()),
                ("seen", models.FloatField()),
                (
                    "bot",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="rating_records",
                        to="tournaments.bot",
                    ),
                ),
                (
                    "opponent",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="tournaments.botversion",
                    ),
                ),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(fields=("bot", "opponent"), name="rating_record_pair")
                ],
            },
        ),
        migrations.RunPython(recompute, migrations.RunPython.noop, elidable=True),
    ]
