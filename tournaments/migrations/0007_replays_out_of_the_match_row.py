"""Replays out of the match row: each stored record moves to a gzip file in the replay
storage (tournaments.play.replay_store), named by a Replay row; then the column goes.

Reversing writes the records back into the column (and removes the files).
"""

from typing import Any

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models
from django.db.migrations.state import StateApps

BATCH = 200


def move_replays_out(apps: StateApps, schema_editor: Any) -> None:
    from tournaments.play.replay_store import stored_replay

    Match = apps.get_model("tournaments", "Match")
    Replay = apps.get_model("tournaments", "Replay")
    found = Match.objects.filter(replay__isnull=False).order_by("id").values_list("id", "replay")
    rows = []
    for match_id, record in found.iterator(chunk_size=BATCH):
        kept = stored_replay(match_id, record)
        fields = ("name", "size", "games", "players")
        rows.append(Replay(match_id=match_id, **{f: getattr(kept, f) for f in fields}))
        if len(rows) >= BATCH:
            Replay.objects.bulk_create(rows)
            rows = []
    Replay.objects.bulk_create(rows)


def move_replays_back(apps: StateApps, schema_editor: Any) -> None:
    from tournaments.play import replay_store

    Match = apps.get_model("tournaments", "Match")
    Replay = apps.get_model("tournaments", "Replay")
    for replay in Replay.objects.order_by("match_id").iterator(chunk_size=BATCH):
        Match.objects.filter(pk=replay.match_id).update(replay=replay_store.load(replay))
        replay_store.delete_files(replay.name, replay.games, replay.players)


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0006_scale_rows_and_indexes"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="Replay",
            fields=[
                (
                    "match",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="stored_replay",
                        serialize=False,
                        to="tournaments.match",
                    ),
                ),
                ("name", models.CharField(max_length=255)),
                ("size", models.PositiveIntegerField(default=0)),
                ("games", models.PositiveIntegerField(default=0)),
                ("players", models.PositiveSmallIntegerField(default=0)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
            ],
        ),
        migrations.RunPython(move_replays_out, move_replays_back),
        migrations.RemoveField(
            model_name="match",
            name="replay",
        ),
        # The accessor takes the column's name once the column is gone.
        migrations.AlterField(
            model_name="replay",
            name="match",
            field=models.OneToOneField(
                on_delete=django.db.models.deletion.CASCADE,
                primary_key=True,
                related_name="replay",
                serialize=False,
                to="tournaments.match",
            ),
        ),
        migrations.AddIndex(
            model_name="bot",
            index=models.Index(fields=["name"], name="bot_name"),
        ),
        migrations.AddIndex(
            model_name="tournament",
            index=models.Index(fields=["name"], name="tournament_name"),
        ),
    ]
