"""The cost of the live feed (tournaments.play.live_feed) to the worker, per move.

Every match a worker plays publishes, after each move, the table's public view (the
observation keys every seat sees alike) to Redis. This bench plays the same matches of
in-process house bots (so that the referee's own cost is all there is to compare) with
the registry's engine and with the feed's, in turns, and prints the time per move of
each, the difference, and the ratio; then the size of the events in Redis.

Run: ``python -m bench.service.live_feed [--redis URL] [--matches N]`` (Redis database 7 by
default, emptied of the bench's keys at the end).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tournaments.config.settings")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/7")
    parser.add_argument("--matches", type=int, default=20)
    args = parser.parse_args()
    django.setup()
    from django.conf import settings

    from judge.players import house_players
    from judge.referee import MatchSpec, play_match
    from tournaments.play import human_seat, live_feed

    settings.JUDGE_TABLE_REDIS_URL = args.redis
    client = human_seat.table_redis()
    print(
        f"{'game':10} {'players':>7} {'moves':>6} {'plain us/move':>13} "
        f"{'unwatched':>9} {'watched':>8} {'ratio':>6} {'events':>6} {'bytes/event':>11}"
    )
    for name, players in (("oceans11", 2), ("bigtwo", 4), ("fifteen35", 6)):
        times: dict[str, list[float]] = {"plain": [], "unwatched": [], "watched": []}
        moves = size = events = 0
        for number in range(args.matches):
            spec = MatchSpec(game=name, seed=number, players=players)
            match_id = 900_000 + number
            for kind, samples in times.items():
                bots, start = house_players(name, ["random"] * players, number)
                if kind == "watched":
                    live_feed.watch(match_id)
                maker = None if kind == "plain" else live_feed.feed_maker(match_id, name)
                began = time.perf_counter()
                outcome = play_match(spec, bots, start, make_game=maker)
                spent = time.perf_counter() - began
                moves = sum(len(g["record"]["actions"]) for g in outcome.record["games"])
                samples.append(spent / moves)
            key = live_feed.feed_key(match_id)
            size += sum(len(line) for line in client.lrange(key, 0, -1))
            events += client.llen(key)
            client.delete(key, live_feed.watch_key(match_id))
        plain, unwatched, watched = (statistics.median(v) * 1e6 for v in times.values())
        print(
            f"{name:10} {players:7d} {moves:6d} {plain:13.1f} {unwatched:9.1f} {watched:8.1f} "
            f"{watched / plain:6.2f} {events // args.matches:6d} {size / max(events, 1):11.0f}"
        )


if __name__ == "__main__":
    main()
