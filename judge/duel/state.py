"""A duel's running state: its test, the pairs so far, the LLR after each round, the
decision. Frozen and JSON-ready, so the command line keeps it in memory and the service
can store it in one column and fold each finished round into it.

Rounds are only the unit in which pairs are played; the test looks at the LLR after every
pair of a round, in the order the pairs were played, and stops at the first pair whose
LLR reaches a bound (issue 45: a look once a round of 10 pairs played 9-20% more games to
a decision than Wald's theory says). The round's pairs after that one are its overshoot,
fishtest's word: played, recorded and shown, but counted neither by the test nor by the
estimate, so that both describe exactly the test that stopped at the crossing (the one
``judge.duel.stopped`` models and bench/duels/estimate.py validates).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from judge.duel.pairs import pair_points
from judge.duel.sprt import Decision, Estimate, Pentanomial, Sprt
from judge.duel.stopped import sequential_estimate


@dataclass(frozen=True)
class DuelState:
    """Where a duel stands. ``penta`` holds the pairs the test counted, up to the one that
    decided; ``history`` (games counted, LLR) after each round folded in, the last one at
    the decision; ``looks`` how often the test looked at the LLR (once a pair; a state
    stored before issue 45 looked once a round); ``overshoot`` the pairs played after the
    decision in its round, kept out of the test and the estimate."""

    test: Sprt
    penta: Pentanomial = field(default_factory=Pentanomial)
    history: tuple[tuple[int, float], ...] = ()
    decision: Decision = Decision.RUNNING
    looks: int = 0
    overshoot: Pentanomial = field(default_factory=Pentanomial)

    @property
    def llr(self) -> float:
        return self.history[-1][1] if self.history else 0.0

    def pairs_next(self, per_round: int, pending: int = 0) -> int:
        """How many pairs the next round plays: ``per_round``, cut to the cap (0: over),
        ``pending`` pairs being already on their way in rounds not folded in yet."""
        if self.decision is not Decision.RUNNING:
            return 0
        if not self.test.max_games:
            return per_round
        left = (self.test.max_games - self.penta.games) // 2 - pending
        return max(0, min(per_round, left))

    def record_round(
        self, first: Sequence[Sequence[float]], second: Sequence[Sequence[float]]
    ) -> DuelState:
        """This state after a round: ``first`` and ``second`` list each game's scores, seat
        by seat, of the round's two matches (the same deals, B and A swapped), in the
        order the games were played."""
        if len(first) != len(second) or not first:
            raise ValueError(
                f"a round's two matches must hold the same deals, not {len(first)} "
                f"and {len(second)} games"
            )
        return self.record_pairs(
            [pair_points(one, two) for one, two in zip(first, second, strict=True)]
        )

    def record_pairs(self, points: Sequence[float]) -> DuelState:
        """This state after a round whose pairs, in the order played, gave B ``points``
        (0 to 2 each): the test looks at the LLR after each pair and stops at the first
        that reaches a bound (or the cap); the pairs after it are the overshoot."""
        if self.decision is not Decision.RUNNING:
            raise ValueError(f"the duel is over ({self.decision.value}): no more rounds")
        if not points:
            raise ValueError("a round adds pairs: this one has none")
        test, penta, looks = self.test, self.penta, self.looks
        llr, decision = self.llr, Decision.RUNNING
        left = list(points)
        while left and decision is Decision.RUNNING:
            penta = penta.add(left.pop(0))
            looks += 1
            llr = test.llr(penta)
            decision = test.decide(llr, penta.games)
        overshoot = self.overshoot
        for points_b in left:
            overshoot = overshoot.add(points_b)
        return replace(
            self,
            penta=penta,
            history=(*self.history, (penta.games, llr)),
            decision=decision,
            looks=looks,
            overshoot=overshoot,
        )

    def estimate(self) -> Estimate:
        """B's Elo over A and its 95% interval, aware of when the test stopped (or would
        stop, while it runs): see judge.duel.stopped."""
        return sequential_estimate(self.test, self.penta, self.decision, self.looks)

    def verdict(self) -> str:
        """The decision in words, with its error rate and the Elo estimate."""
        test = self.test
        bounds = f"{test.lower:.2f}, +{test.upper:.2f}"
        said = {
            Decision.RUNNING: f"running: LLR {self.llr:+.2f} (bounds {bounds})",
            Decision.H1: f"H1 accepted: B is stronger than A (false-positive rate {test.alpha:g})",
            Decision.H0: (
                f"H0 accepted: B is not {test.elo1:g} Elo stronger than A "
                f"(false-negative rate {test.beta:g})"
            ),
            Decision.CAP: f"no decision: the cap of {test.max_games} games came first",
        }[self.decision]
        found = self.estimate()
        elo = _elo_text(found.elo, "unbounded")
        interval = f"[{_elo_text(found.low, '-inf')}, {_elo_text(found.high, '+inf')}]"
        extra = self.overshoot.games
        after = f" ({extra} more played after the decision, not counted)" if extra else ""
        return (
            f"{said}\nB - A: {elo} Elo, 95% interval {interval}, after {self.penta.games} "
            f"games{after} (allowing for when the test stops)"
        )

    def to_json(self) -> dict[str, Any]:
        """The state with its derived figures (score, bounds, Elo estimate)."""
        found = self.estimate()
        test = self.test
        return {
            "test": {
                "elo0": test.elo0,
                "elo1": test.elo1,
                "alpha": test.alpha,
                "beta": test.beta,
                "max_games": test.max_games,
            },
            "pairs": self.penta.pairs,
            "games": self.penta.games,
            "pentanomial": list(self.penta.counts),
            "score": round(self.penta.mean(), 6),
            "llr": round(self.llr, 6),
            "bounds": [round(test.lower, 6), round(test.upper, 6)],
            "history": [[games, round(llr, 6)] for games, llr in self.history],
            "looks": self.looks,
            "overshoot": {
                "pairs": self.overshoot.pairs,
                "games": self.overshoot.games,
                "pentanomial": list(self.overshoot.counts),
            },
            "decision": self.decision.value,
            "elo": {"estimate": found.elo, "low": found.low, "high": found.high},
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> DuelState:
        """The state ``to_json`` wrote (derived figures are recomputed, not read)."""
        history = tuple((int(games), float(llr)) for games, llr in data["history"])
        overshoot = data.get("overshoot", {}).get("pentanomial", [0] * 5)
        return cls(
            test=Sprt(**data["test"]),
            penta=_counts(data["pentanomial"]),
            history=history,
            decision=Decision(data["decision"]),
            # Stored before issue 45, a state looked at its LLR once a round.
            looks=int(data.get("looks", len(history))),
            overshoot=_counts(overshoot),
        )


def _counts(values: Sequence[Any]) -> Pentanomial:
    counts = tuple(int(n) for n in values)
    if len(counts) != 5:
        raise ValueError(f"a duel state needs five pair counts, not {len(counts)}")
    return Pentanomial((counts[0], counts[1], counts[2], counts[3], counts[4]))


def _elo_text(value: float | None, unbounded: str) -> str:
    return unbounded if value is None else f"{value:+.1f}"
