"""A duel's running state: its test, the pairs so far, the LLR after each round, the
decision. Frozen and JSON-ready, so the command line keeps it in memory and the service
can store it in one column and fold each finished round into it.
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
    """Where a duel stands; ``history`` holds (games played, LLR) after each round."""

    test: Sprt
    penta: Pentanomial = field(default_factory=Pentanomial)
    history: tuple[tuple[int, float], ...] = ()
    decision: Decision = Decision.RUNNING

    @property
    def llr(self) -> float:
        return self.history[-1][1] if self.history else 0.0

    def pairs_next(self, per_round: int) -> int:
        """How many pairs the next round plays: ``per_round``, cut to the cap (0: over)."""
        if self.decision is not Decision.RUNNING:
            return 0
        if not self.test.max_games:
            return per_round
        return max(0, min(per_round, (self.test.max_games - self.penta.games) // 2))

    def record_round(
        self, first: Sequence[Sequence[float]], second: Sequence[Sequence[float]]
    ) -> DuelState:
        """This state after a round: ``first`` and ``second`` list each game's scores, seat
        by seat, of the round's two matches (the same deals, B and A swapped)."""
        if self.decision is not Decision.RUNNING:
            raise ValueError(f"the duel is over ({self.decision.value}): no more rounds")
        if len(first) != len(second) or not first:
            raise ValueError(
                f"a round's two matches must hold the same deals, not {len(first)} "
                f"and {len(second)} games"
            )
        penta = self.penta
        for one, two in zip(first, second, strict=True):
            penta = penta.add(pair_points(one, two))
        return self.looked_at(penta)

    def looked_at(self, penta: Pentanomial) -> DuelState:
        """This state after a round that brought the pair counts to ``penta``: the test's
        look at the LLR and its decision (the stopping rule, which the benchmarks call with
        simulated counts: bench/duels/estimate.py)."""
        if self.decision is not Decision.RUNNING:
            raise ValueError(f"the duel is over ({self.decision.value}): no more rounds")
        if penta.pairs <= self.penta.pairs:
            raise ValueError(f"a round adds pairs: {penta.pairs} after {self.penta.pairs}")
        llr = self.test.llr(penta)
        decision = self.test.decide(llr, penta.games)
        return replace(
            self, penta=penta, history=(*self.history, (penta.games, llr)), decision=decision
        )

    def estimate(self) -> Estimate:
        """B's Elo over A and its 95% interval, aware of when the test stopped (or would
        stop, while it runs): see judge.duel.stopped."""
        return sequential_estimate(self.test, self.penta, self.decision, len(self.history))

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
        return (
            f"{said}\nB - A: {elo} Elo, 95% interval {interval}, after {self.penta.games} "
            "games (allowing for when the test stops)"
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
            "decision": self.decision.value,
            "elo": {"estimate": found.elo, "low": found.low, "high": found.high},
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> DuelState:
        """The state ``to_json`` wrote (derived figures are recomputed, not read)."""
        counts = tuple(int(n) for n in data["pentanomial"])
        if len(counts) != 5:
            raise ValueError(f"a duel state needs five pair counts, not {len(counts)}")
        return cls(
            test=Sprt(**data["test"]),
            penta=Pentanomial((counts[0], counts[1], counts[2], counts[3], counts[4])),
            history=tuple((int(games), float(llr)) for games, llr in data["history"]),
            decision=Decision(data["decision"]),
        )


def _elo_text(value: float | None, unbounded: str) -> str:
    return unbounded if value is None else f"{value:+.1f}"
