"""The global rating per comparison unit, with a deviation from the data (docs/ratings.md).

Rating rows gain the rest of the rating's state (deviation, units, variance, information,
spread); every rating and the rating history are then recomputed from the stored match
history with the new update (streamed; the same code as ``manage.py recompute_ratings
--write``), so no row keeps a per-match Elo.
"""

from typing import Any

from django.db import migrations, models
from django.db.migrations.state import StateApps


def recompute(apps: StateApps, schema_editor: Any) -> None:
    from tournaments.rating.stored.recompute import recompute_and_store

    recompute_and_store(apps=apps)


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0007_replays_out_of_the_match_row"),
    ]

    operations = [
        migrations.AddField(
            model_name="rating",
            name="deviation",
            field=models.FloatField(db_default=350.0, default=350.0),
        ),
        migrations.AddField(
            model_name="rating",
            name="information",
            field=models.FloatField(db_default=0.0, default=0.0),
        ),
        migrations.AddField(
            model_name="rating",
            name="spread",
            field=models.FloatField(db_default=0.0, default=0.0),
        ),
        migrations.AddField(
            model_name="rating",
            name="units",
            field=models.PositiveIntegerField(db_default=0, default=0),
        ),
        migrations.AddField(
            model_name="rating",
            name="variance",
            field=models.FloatField(db_default=122500.0, default=122500.0),
        ),
        migrations.RunPython(recompute, migrations.RunPython.noop, elidable=True),
    ]
