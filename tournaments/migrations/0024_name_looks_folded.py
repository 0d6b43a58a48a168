"""The names' looks again, with the wider skeleton of issue 42 (Latin marks and strokes
dropped; rn, vv and cl read as m, w and d): every user's and bot's look is recomputed.

Names already there that now look alike are all kept, users and bots alike: the oldest
holds the look (a new name like it is refused), and each younger one is kept under its
look marked with its id ("look#user12"), which no name can take; the migration prints
them so that staff can ask their owners to rename. Reversing it leaves the new looks."""

from typing import Any

from django.conf import settings
from django.db import migrations

from tournaments.bots.names import skeleton

BATCH = 1000


def recompute_looks(apps: Any, schema_editor: Any) -> None:
    NameSkeleton = apps.get_model("tournaments", "NameSkeleton")
    User = apps.get_model(*settings.AUTH_USER_MODEL.split("."))
    Bot = apps.get_model("tournaments", "Bot")
    NameSkeleton.objects.all().delete()  # derived rows only: made again below
    users = User.objects.order_by("id").values_list("id", "username")
    rows = looks(NameSkeleton, "user", ((pk, skeleton(name), name) for pk, name in users))
    NameSkeleton.objects.bulk_create(rows, batch_size=BATCH)
    bots = Bot.objects.order_by("id").values_list("id", "game", "name")
    named = ((pk, f"{game}:{skeleton(name)}", name) for pk, game, name in bots)
    rows = looks(NameSkeleton, "bot", named)
    NameSkeleton.objects.bulk_create(rows, batch_size=BATCH)


def looks(NameSkeleton: Any, kind: str, named: Any) -> list[Any]:
    """The rows of ``named`` (id, look, name), oldest first; a look already held goes to
    the younger name marked with its id, and is reported."""
    rows: list[Any] = []
    holders: dict[str, str] = {}
    for pk, look, name in named:
        if look in holders:
            print(f"  {kind} {name!r} (id {pk}) looks like {holders[look]!r}: kept, marked")
            look = f"{look}#{kind}{pk}"
        else:
            holders[look] = name
        rows.append(NameSkeleton(kind=kind, look=look, **{f"{kind}_id": pk}))
    return rows


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0023_fair_play_flags"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [migrations.RunPython(recompute_looks, migrations.RunPython.noop)]
