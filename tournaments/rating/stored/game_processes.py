"""The rating history replayed one game per process (recompute_ratings --processes N).

A bot plays one game, and a rated match seats bots of its game only, so each game's
ratings depend on that game's matches alone: replaying the games in separate processes
gives every bot exactly the state the one-process replay gives it (the same updates, in
the same order per bot). The fit is pure Python and CPU-bound, so on N cores N games go
N times as fast (the largest game alone sets the floor).

Each worker is a fresh interpreter (``spawn``: a forked Django process would share its
parent's database socket, and the parent may be inside the transaction that replaces
the history), reads its games' matches on its own connection (committed rows: what the
parent's transaction reads too, since it only writes the rating tables) and sends each
match's placing and rating changes to the parent in batches through a bounded queue,
then its final states. The parent hands them to the same callbacks as the one-process
replay (recompute_and_store writes the history by COPY in its transaction meanwhile),
so memory stays that of the rating states plus a few batches in flight.

This module imports only the standard library at the top: a worker imports it before
Django is set up.
"""

from __future__ import annotations

import multiprocessing
import queue
import traceback
from collections.abc import Callable, Sequence
from typing import Any

#: Matches per message from a worker to the parent.
BATCH = 1000
#: Messages in flight per worker before it waits for the parent.
IN_FLIGHT = 4
#: Seconds the parent waits for a message before checking that its workers live.
POLL = 1.0

Message = tuple[Any, ...]


def deal(weights: dict[str, int], processes: int) -> list[list[str]]:
    """The games split among at most ``processes`` workers, heaviest first, each to the
    least loaded worker so far (longest processing time first); empty workers dropped."""
    loads: list[tuple[int, list[str]]] = [(0, []) for _ in range(max(1, processes))]
    for game in sorted(weights, key=lambda g: (-weights[g], g)):
        index = min(range(len(loads)), key=lambda i: loads[i][0])
        load, games = loads[index]
        loads[index] = (load + weights[game], [*games, game])
    return [games for _, games in loads if games]


def replay(
    groups: Sequence[Sequence[str]],
    database: dict[str, Any],
    on_match: Callable[[Any, list[Any], int], None],
) -> list[Any]:
    """Replay each group of games in its own worker; ``on_match(placing, changes,
    replayed)`` for every match as its batch arrives (``replayed``: matches replayed so
    far, all workers together); each worker's final replay state (history.Replayed)."""
    context = multiprocessing.get_context("spawn")
    inbox = context.Queue(maxsize=IN_FLIGHT * len(groups))
    workers = [
        context.Process(target=_work, args=(list(games), database, inbox), daemon=True)
        for games in groups
    ]
    for worker in workers:
        worker.start()
    try:
        return _collect(workers, inbox, on_match)
    finally:
        for worker in workers:
            if worker.is_alive():
                worker.terminate()
            worker.join()


def _collect(
    workers: list[Any], inbox: Any, on_match: Callable[[Any, list[Any], int], None]
) -> list[Any]:
    finished: list[Any] = []
    replayed = 0
    while len(finished) < len(workers):
        try:
            message = inbox.get(timeout=POLL)
        except queue.Empty:
            _check_alive(workers)
            continue
        kind, payload = message
        if kind == "error":
            raise RuntimeError(f"a replay worker failed:\n{payload}")
        if kind == "done":
            finished.append(payload)
            continue
        for placing, changes in payload:
            replayed += 1
            on_match(placing, changes, replayed)
    return finished


def _check_alive(workers: list[Any]) -> None:
    dead = [w.exitcode for w in workers if w.exitcode not in (None, 0)]
    if dead:
        raise RuntimeError(f"a replay worker died (exit code {dead[0]}) before it finished")


def _work(games: list[str], database: dict[str, Any], outbox: Any) -> None:
    """A worker: Django set up on the parent's database, its games replayed, each batch
    and then the final state sent (or the error that stopped it)."""
    try:
        import django

        django.setup()
        from django.db import connection

        connection.settings_dict.update(database)
        from tournaments.rating.stored import history

        batch: list[tuple[Any, list[Any]]] = []

        def on_match(placing: Any, changes: list[Any]) -> None:
            batch.append((placing, changes))
            if len(batch) >= BATCH:
                outbox.put(("batch", list(batch)))
                batch.clear()

        state = history.replay_games(games, on_match)
        outbox.put(("batch", batch))
        outbox.put(("done", state))
        connection.close()
    except BaseException:  # the parent raises it, with the worker's traceback
        outbox.put(("error", traceback.format_exc()))
