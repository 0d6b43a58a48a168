"""The continuous ladder: one Ladder row per game, and the ladder a match was played for."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0009_seat_log_games"),
    ]

    operations = [
        migrations.CreateModel(
            name="Ladder",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("game", models.CharField(max_length=32, unique=True)),
                ("paused", models.BooleanField(default=False)),
                ("table_size", models.PositiveSmallIntegerField(default=0)),
                ("deals", models.PositiveSmallIntegerField(default=1)),
                ("duplicate", models.BooleanField(default=True)),
                ("updated_at", models.DateTimeField(auto_now=True)),
            ],
        ),
        migrations.AddField(
            model_name="match",
            name="ladder",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="matches",
                to="tournaments.ladder",
            ),
        ),
    ]
