"""Stored rows for leaderboards and bot pages, and an index for every list and filter.

Rating rows gain the pairwise record (wins, draws, losses), rating history a per-bot
number (charts sample by it), seats their version's bot; the data already stored is
filled in here (one pass over the rated matches).
"""

from typing import Any

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models
from django.db.migrations.state import StateApps
from django.db.models import OuterRef, Subquery

BATCH = 2000


def fill_seat_bots(apps: StateApps, schema_editor: Any) -> None:
    Seat = apps.get_model("tournaments", "Seat")
    BotVersion = apps.get_model("tournaments", "BotVersion")
    owner = BotVersion.objects.filter(pk=OuterRef("version_id")).values("bot_id")[:1]
    Seat.objects.update(bot_id=Subquery(owner))


def number_rating_history(apps: StateApps, schema_editor: Any) -> None:
    RatingHistory = apps.get_model("tournaments", "RatingHistory")
    counts: dict[int, int] = {}
    changed = []
    rows = RatingHistory.objects.order_by("bot_id", "id").only("id", "bot_id")
    for row in rows.iterator(chunk_size=BATCH):
        counts[row.bot_id] = row.seq = counts.get(row.bot_id, 0) + 1
        changed.append(row)
        if len(changed) >= BATCH:
            RatingHistory.objects.bulk_update(changed, ["seq"])
            changed = []
    RatingHistory.objects.bulk_update(changed, ["seq"])


def count_records(apps: StateApps, schema_editor: Any) -> None:
    Match = apps.get_model("tournaments", "Match")
    Rating = apps.get_model("tournaments", "Rating")
    Seat = apps.get_model("tournaments", "Seat")
    rows = {rating.bot_id: rating for rating in Rating.objects.all()}
    rated = Match.objects.filter(status="done", rating_seq__isnull=False)
    seats: dict[int, list[int]] = {}
    for match_id, bot_id in (
        Seat.objects.filter(match__in=rated)
        .order_by("match_id", "index")
        .values_list("match_id", "bot_id")
        .iterator(chunk_size=BATCH)
    ):
        seats.setdefault(match_id, []).append(bot_id)
    for match_id, result in rated.values_list("id", "result").iterator(chunk_size=BATCH):
        bots = seats.get(match_id, [])
        places = (result or {}).get("places", [])
        for i in range(len(bots)):
            for j in range(i + 1, min(len(bots), len(places))):
                if bots[i] == bots[j]:
                    continue
                first = 1.0 if places[i] < places[j] else 0.5 if places[i] == places[j] else 0.0
                for bot_id, score in ((bots[i], first), (bots[j], 1.0 - first)):
                    row = rows.get(bot_id)
                    if row is None:
                        continue
                    field = "wins" if score == 1.0 else "losses" if score == 0.0 else "draws"
                    setattr(row, field, getattr(row, field) + 1)
    Rating.objects.bulk_update(rows.values(), ["wins", "draws", "losses"], batch_size=BATCH)


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0005_match_units_tournamenttable"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="rating",
            name="draws",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddField(
            model_name="rating",
            name="losses",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddField(
            model_name="rating",
            name="wins",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddField(
            model_name="ratinghistory",
            name="seq",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddField(
            model_name="seat",
            name="bot",
            field=models.ForeignKey(
                db_index=False,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="seats",
                to="tournaments.bot",
            ),
        ),
        migrations.RunPython(fill_seat_bots, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="seat",
            name="bot",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="seats",
                to="tournaments.bot",
            ),
        ),
        migrations.RunPython(number_rating_history, migrations.RunPython.noop),
        migrations.RunPython(count_records, migrations.RunPython.noop),
        migrations.AddIndex(
            model_name="bot",
            index=models.Index(fields=["game", "id"], name="bot_game_id"),
        ),
        migrations.AddIndex(
            model_name="bot",
            index=models.Index(fields=["retired", "id"], name="bot_retired_id"),
        ),
        migrations.AddIndex(
            model_name="botversion",
            index=models.Index(fields=["status", "id"], name="version_status_id"),
        ),
        migrations.AddIndex(
            model_name="botversion",
            index=models.Index(fields=["retired", "id"], name="version_retired_id"),
        ),
        migrations.AddIndex(
            model_name="match",
            index=models.Index(fields=["tournament", "number"], name="match_tournament_number"),
        ),
        migrations.AddIndex(
            model_name="match",
            index=models.Index(fields=["game", "id"], name="match_game_id"),
        ),
        migrations.AddIndex(
            model_name="match",
            index=models.Index(fields=["status", "id"], name="match_status_id"),
        ),
        migrations.AddIndex(
            model_name="match",
            index=models.Index(fields=["rated", "id"], name="match_rated_id"),
        ),
        migrations.AddIndex(
            model_name="match",
            index=models.Index(
                condition=models.Q(("status", "running")),
                fields=["lease_expires_at"],
                name="match_running_lease",
            ),
        ),
        migrations.AddIndex(
            model_name="match",
            index=models.Index(
                condition=models.Q(("status", "queued")),
                fields=["enqueued_at"],
                name="match_queued_enqueued",
            ),
        ),
        migrations.AddIndex(
            model_name="match",
            index=models.Index(fields=["started_at"], name="match_started_at"),
        ),
        migrations.AddIndex(
            model_name="rating",
            index=models.Index(fields=["game", "-elo", "bot"], name="rating_board"),
        ),
        migrations.AddIndex(
            model_name="ratinghistory",
            index=models.Index(fields=["bot", "seq"], name="rating_history_bot_seq"),
        ),
        migrations.AddIndex(
            model_name="seat",
            index=models.Index(fields=["bot", "match"], name="seat_bot_match"),
        ),
        migrations.AddIndex(
            model_name="seat",
            index=models.Index(fields=["version", "match"], name="seat_version_match"),
        ),
        migrations.AddIndex(
            model_name="tournament",
            index=models.Index(fields=["game", "id"], name="tournament_game_id"),
        ),
        migrations.AddIndex(
            model_name="tournament",
            index=models.Index(fields=["status", "id"], name="tournament_status_id"),
        ),
        migrations.AddIndex(
            model_name="tournament",
            index=models.Index(fields=["rated", "id"], name="tournament_rated_id"),
        ),
    ]
