"""The global rating's dispersion prior counts draws (docs/ratings.md, "The dispersion t").

Rating rows gain ``decisive`` (the sum over a bot's units of the share of its pairwise
results that were not draws); every rating and the rating history are then recomputed
from the stored match history with the update that uses it (the same code as
``manage.py recompute_ratings --write``).
"""

from typing import Any

from django.db import migrations, models
from django.db.migrations.state import StateApps


def recompute(apps: StateApps, schema_editor: Any) -> None:
    from tournaments.rating.stored.recompute import recompute_and_store

    recompute_and_store(apps=apps)


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0010_ladder"),
    ]

    operations = [
        migrations.AddField(
            model_name="rating",
            name="decisive",
            field=models.FloatField(db_default=0.0, default=0.0),
        ),
        migrations.RunPython(recompute, migrations.RunPython.noop, elidable=True),
    ]
