"""Who plays whom, in which seat, and in what order: pure functions over participant numbers.

Participants are 0..n-1. A schedule is a list of tables, each a tuple of participants in
seat order, in the order the matches should be queued. See docs/tournaments.md.
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from collections.abc import Sequence

#: Use every possible table when there are at most this many; build a balanced set above.
ALL_TABLES_UP_TO = 70

Table = tuple[int, ...]


class ScheduleError(ValueError):
    """A tournament that cannot be scheduled as asked."""


def schedule(n: int, size: int, rounds: int = 1, seed: int = 0) -> list[Table]:
    """Every match of a round robin: tables of ``size`` among ``n`` participants.

    Each round plays the same set of tables (every pair when ``size`` is 2) with the seats
    rotated; the queue order keeps everyone's number of matches level at every moment.
    """
    check_shape(n, size, rounds)
    groups = table_groups(n, size, seed)
    played = [tuple(sorted(group)) for _ in range(rounds) for group in groups]
    return assign_seats(queue_order(played, n), n)


def check_shape(n: int, size: int, rounds: int) -> None:
    """ScheduleError unless ``n`` participants can play ``rounds`` rounds at tables of
    ``size`` (asked before any schedule is built: building one takes seconds)."""
    if size < 2:
        raise ScheduleError(f"a table needs at least 2 seats, not {size}")
    if n < size:
        raise ScheduleError(f"{n} participants cannot fill a table of {size}; enter more bots")
    if rounds < 1:
        raise ScheduleError(f"rounds must be at least 1, not {rounds}")


def planned_tables(n: int, size: int, rounds: int) -> int:
    """The matches ``schedule`` makes, counted without building it: exact when every
    combination is played, else the fewest the balanced search starts from (it may add
    a few to let every pair meet; 64 entrants at 2 seats: 2,016 planned, 2,336 built)."""
    return tables_per_round(n, size)[0] * rounds


def table_groups(n: int, size: int, seed: int = 0) -> list[Table]:
    """The groups that meet once per round, every pair as evenly as the numbers allow.

    All combinations when there are few (every pair then meets equally often); otherwise
    the fewest tables in which everyone plays equally often and every pair can meet,
    improved by swapping players between tables until pair counts are as level as found.
    """
    if math.comb(n, size) <= ALL_TABLES_UP_TO:
        return list(itertools.combinations(range(n), size))
    count = _table_count(n, size)
    step = n // math.gcd(n, size)
    rng = random.Random(seed)
    while True:
        tables = _greedy_tables(n, size, count, rng)
        _level_pairs(tables, n, rng)
        if _every_pair_meets(tables, n):
            return [tuple(sorted(table)) for table in tables]
        count += step


def tables_per_round(n: int, size: int) -> tuple[int, bool]:
    """How many tables a round of ``table_groups`` has, without building them: (count, True)
    when every combination is played; else (the fewest the balanced search starts from,
    False), as it may need a few more to let every pair meet."""
    if n < size or size < 2:
        return 0, True
    if math.comb(n, size) <= ALL_TABLES_UP_TO:
        return math.comb(n, size), True
    return _table_count(n, size), False


def _every_pair_meets(tables: list[list[int]], n: int) -> bool:
    met = {_pair(a, b) for table in tables for a, b in itertools.combinations(table, 2)}
    return len(met) == math.comb(n, 2)


def _table_count(n: int, size: int) -> int:
    """Fewest tables that cover every pair at least on paper and seat everyone equally."""
    step = n // math.gcd(n, size)
    needed = math.ceil(math.comb(n, 2) / math.comb(size, 2))
    return step * math.ceil(needed / step)


def _greedy_tables(n: int, size: int, count: int, rng: random.Random) -> list[list[int]]:
    appearances = [0] * n
    met: Counter[tuple[int, int]] = Counter()
    tables = []
    for _ in range(count):
        order = sorted(range(n), key=lambda p: (appearances[p], rng.random()))
        table = [order[0]]
        while len(table) < size:
            rest = [p for p in order if p not in table]
            table.append(
                min(
                    rest,
                    key=lambda p: (appearances[p], sum(met[_pair(p, q)] for q in table)),
                )
            )
        for p in table:
            appearances[p] += 1
        for a, b in itertools.combinations(table, 2):
            met[_pair(a, b)] += 1
        tables.append(table)
    return tables


def _level_pairs(tables: list[list[int]], n: int, rng: random.Random) -> None:
    """Swap players between tables (keeping everyone's count) while pair counts level out."""
    met: Counter[tuple[int, int]] = Counter()
    for table in tables:
        for a, b in itertools.combinations(table, 2):
            met[_pair(a, b)] += 1
    score = sum(c * c for c in met.values())
    best, best_score = [list(t) for t in tables], score
    for _ in range(20000):
        first, second = rng.sample(range(len(tables)), 2)
        only_first = [p for p in tables[first] if p not in tables[second]]
        only_second = [p for p in tables[second] if p not in tables[first]]
        if not only_first or not only_second:
            continue
        x, y = rng.choice(only_first), rng.choice(only_second)
        change = _swap_cost(met, tables[first], tables[second], x, y)
        if change < 0 or (change == 0 and rng.random() < 0.5) or rng.random() < 0.01:
            _apply_swap(met, tables[first], tables[second], x, y)
            score += change
            if score < best_score:
                best, best_score = [list(t) for t in tables], score
    tables[:] = best


def _swap_cost(met: Counter[tuple[int, int]], t1: list[int], t2: list[int], x: int, y: int) -> int:
    """Change in the sum of squared pair counts if x (in t1) and y (in t2) change tables."""
    change: Counter[tuple[int, int]] = Counter()
    _move(change, t1, t2, x, y)
    return sum((met[k] + d) ** 2 - met[k] ** 2 for k, d in change.items())


def _apply_swap(
    met: Counter[tuple[int, int]], t1: list[int], t2: list[int], x: int, y: int
) -> None:
    _move(met, t1, t2, x, y)
    t1[t1.index(x)] = y
    t2[t2.index(y)] = x


def _move(met: Counter[tuple[int, int]], t1: list[int], t2: list[int], x: int, y: int) -> None:
    for p in t1:
        if p != x:
            met[_pair(x, p)] -= 1
            met[_pair(y, p)] += 1
    for p in t2:
        if p != y:
            met[_pair(y, p)] -= 1
            met[_pair(x, p)] += 1


def _pair(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a < b else (b, a)


def queue_order(tables: Sequence[Table], n: int) -> list[Table]:
    """The tables reordered so that, after any number of them, match counts stay level.

    Repeatedly takes the table whose players have played least so far (by the busiest of
    them, then their total), so partial standings compare like with like.
    """
    played = [0] * n
    left = list(tables)
    ordered = []
    while left:
        best = min(
            range(len(left)),
            key=lambda i: (max(played[p] for p in left[i]), sum(played[p] for p in left[i]), i),
        )
        table = left.pop(best)
        for p in table:
            played[p] += 1
        ordered.append(table)
    return ordered


def assign_seats(tables: Sequence[Table], n: int) -> list[Table]:
    """Seat each table so that everyone sits in every seat as evenly as possible.

    For each table in order, every seat goes to the player of that table who has sat there
    least (small tables try every arrangement).
    """
    sat: list[Counter[int]] = [Counter() for _ in range(n)]
    seated = []
    for table in tables:
        if len(table) <= 5:
            options = itertools.permutations(table)
            order = min(options, key=lambda seats: _seat_cost(sat, seats))
        else:
            order = _greedy_seats(sat, table)
        for seat, p in enumerate(order):
            sat[p][seat] += 1
        seated.append(tuple(order))
    return seated


def _seat_cost(sat: list[Counter[int]], seats: Sequence[int]) -> tuple[int, int]:
    counts = [sat[p][seat] for seat, p in enumerate(seats)]
    return max(counts), sum(c * c for c in counts)


def _greedy_seats(sat: list[Counter[int]], table: Table) -> tuple[int, ...]:
    """Fill the (player, seat) pairs with the fewest past sittings first."""
    order: list[int | None] = [None] * len(table)
    left = set(table)
    options = sorted(
        ((sat[p][seat], p, seat) for p in table for seat in range(len(table))),
    )
    for _, p, seat in options:
        if p in left and order[seat] is None:
            order[seat] = p
            left.remove(p)
    return tuple(p for p in order if p is not None)
