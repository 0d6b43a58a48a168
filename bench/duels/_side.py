"""One duel of ``bench.duels.throughput``, played from a given checkout of the code.

Run as a script (``python path/to/_side.py``) with the checkout's root as the working
directory and on PYTHONPATH, DATABASE_URL and CELERY_BROKER_URL set: it makes two equal
house bots, creates their duel (which queues its first rounds on the broker, for that
checkout's worker), waits for its end, and prints one JSON line of what the duel did.

It is a script, not an import of this package, because the baseline is an older checkout
(the code when issue 45 was filed) that has no ``bench.duels.throughput``: so it uses only
what both checkouts share (``duels.create_duel``, ``bot_actions.add_version``, the models).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

#: The longest one duel may take (seconds).
TIMEOUT_S = 1800.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", required=True)
    parser.add_argument("--policy", required=True)
    parser.add_argument("--games", type=int, required=True)
    parser.add_argument("--tag", required=True)
    parser.add_argument("--settings", default="{}", help="JSON: Django settings for the duel")
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tournaments.config.settings")
    import django

    django.setup()
    from django.test.utils import override_settings

    from tournaments.bots import bot_actions
    from tournaments.competitions import duels
    from tournaments.models import Bot, BotVersion, Duel, Match

    versions = []
    for side in ("b", "a"):
        name = f"{args.policy}-{side}-{args.tag}"
        bot = Bot.objects.create(game=args.game, name=name, house_policy=args.policy)
        label = f"house:{args.policy}:{side}:{args.tag}"
        versions.append(bot_actions.add_version(bot, b"", label, BotVersion.Status.ACCEPTED))
    # Bounds far narrower than two equal bots can be told apart by in ``games``: the cap ends it.
    request = duels.DuelRequest(
        b=versions[0], a=versions[1], elo0=-1.0, elo1=1.0, alpha=0.001, beta=0.001,
        max_games=args.games, seed=45,
    )  # fmt: skip
    began = time.perf_counter()
    with override_settings(**json.loads(args.settings)):
        duel = duels.create_duel(None, request)
    deadline = time.monotonic() + TIMEOUT_S
    while duel.status == Duel.Status.RUNNING:
        if time.monotonic() > deadline:
            break
        time.sleep(0.05)
        duel.refresh_from_db()
    wall = time.perf_counter() - began
    done = Match.objects.filter(duel=duel, status=Match.Status.DONE)
    matches = [
        {
            "timings": match.timings or {},
            "started": match.started_at.timestamp(),
            "finished": match.finished_at.timestamp(),
        }
        for match in done
    ]
    print(json.dumps({
        "status": duel.status, "failure": duel.failure, "games": duel.state.get("games", 0),
        "pairs_per_round": duel.pairs_per_round, "wall": wall, "matches": matches,
    }))  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
