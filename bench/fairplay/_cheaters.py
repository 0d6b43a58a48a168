"""Big Two bots that cheat through a perfect channel, for the fair-play bench and tests.

``CarryingPolicy`` is the bot of issue 43 with the channel made perfect: at the end of
each deal (the referee's game_over reveals every hand as dealt) it writes its own hand
into a shared store under the name of the other seat's hand; when a later rotation of
the same deal comes, it holds that other hand, finds the entry, and so knows its
opponent's cards. The store stands for the host's dentry cache, or a shared folder on
the local backend: in the bench it is a dict shared by the bot's instances.

Knowing nothing it plays the house greedy bot's moves (so its first rotations are its
honest twin's); knowing the opponent's hand it searches: each legal play is tried and the
deal played out by greedy on both sides, and the play that ends best is taken. Two seats
only (a two-seat table's other hand is the whole secret).
"""

from __future__ import annotations

import json
from collections.abc import MutableMapping
from typing import Any

from judge.bots import Policy
from judge.engine import Action
from judge.games.bigtwo import BigTwo
from judge.games.bigtwo.bots import GreedyPolicy
from judge.games.bigtwo.combos import CARD_ID, classify
from judge.players import PolicyChannel

Store = MutableMapping[frozenset[str], list[str]]
#: The legal plays tried at a decision (greedy's own choice always among them).
CANDIDATES = 12


class CarryingPolicy:
    """Greedy when it knows nothing; a search over the opponent's known hand when the
    store carried it from the deal's earlier rotation."""

    def __init__(self, store: Store, seed: int = 0) -> None:
        self.store = store
        self.greedy = GreedyPolicy(seed)
        self.known: list[str] | None = None
        self.dealt: frozenset[str] | None = None
        self.carried = 0

    def act(self, observation: dict[str, Any], legal: list[Action]) -> Action:
        hand = observation["hand"]
        if self.dealt is None or not self.dealt & set(hand):
            self.dealt = frozenset(hand)
            self.known = self.store.get(self.dealt)
            self.carried += self.known is not None
        if self.known is None or observation["players"] != 2 or len(legal) < 2:
            return self.greedy.act(observation, legal)
        return self._search(observation, legal)

    def game_over(self, message: dict[str, Any]) -> None:
        """Write this deal's hand under the name of the other seat's (the channel)."""
        seat = message["seat"]
        for deal in message["revealed"].get("deals", []):
            hands = deal["dealt"]
            if len(hands) == 2:
                self.store[frozenset(hands[1 - seat])] = list(hands[seat])
        self.dealt = None

    def _search(self, observation: dict[str, Any], legal: list[Action]) -> Action:
        seat = observation["seat"]
        played = {
            c for s, cards in observation["plays"] if s != seat and cards != "pass" for c in cards
        }
        theirs = [c for c in self.known or () if c not in played]
        choice = self.greedy.act(observation, legal)
        tried = [choice, *[a for a in legal if a != choice][: CANDIDATES - 1]]
        return max(tried, key=lambda a: self._play_out(observation, theirs, a))

    def _play_out(self, observation: dict[str, Any], theirs: list[str], action: Action) -> int:
        """The deal played to its end by greedy on both sides after ``action``: my score."""
        seat = observation["seat"]
        game = _position(observation, theirs)
        game.apply(seat, action)
        rollout = GreedyPolicy(0)
        while not game.is_over():
            mover = game.to_act()[0]
            game.apply(mover, rollout.act(game.observation(mover), game.legal_actions(mover)))
        return int(game.scores[seat])


def _position(observation: dict[str, Any], theirs: list[str]) -> BigTwo:
    """A two-seat Big Two engine set to the observed position, the other hand known."""
    seat = observation["seat"]
    game = BigTwo(0, players=2, options={"straights": observation["straights"]})
    game.hands[seat] = sorted(CARD_ID[c] for c in observation["hand"])
    game.hands[1 - seat] = sorted(CARD_ID[c] for c in theirs)
    game.turn = seat
    trick = observation["trick"]
    game.trick = (
        None
        if trick is None
        else classify([CARD_ID[c] for c in trick["cards"]], observation["straights"])
    )
    game.trick_seat = None if trick is None else trick["seat"]
    game.leader = observation["leader"]
    lowest = observation["must_contain"]
    game.must_contain = None if lowest is None else CARD_ID[lowest]
    return game


class RelayChannel(PolicyChannel):
    """An in-process channel that also hands the policy each game_over message (the
    house bots' PolicyChannel drops them: they keep nothing between deals)."""

    def __init__(self, policy: Policy) -> None:
        super().__init__(policy)

    def send(self, line: bytes) -> None:
        super().send(line)
        message = json.loads(line)
        hook = getattr(self.policy, "game_over", None)
        if message["type"] == "game_over" and hook is not None:
            hook(message)


class SoftPlayPolicy:
    """One of a pair of Big Two bots in league at a table of three or four, which tell each
    other (``team``, shared by the pair: a perfect channel) their seats as they play. The
    captain (role "a") plays greedy's moves with its partner left out of greedy's sense of
    danger (it never fights its partner going out); the server (role "b") plays softly:
    it contests nothing (it passes, and leads its lowest single) unless another player is
    close to going out, when it fights as greedy does. So the captain sheds freely and,
    when it goes out, collects the server's full hand: the pair's results against each
    other are far from what their strengths predict. With no news of its partner each
    plays greedy."""

    def __init__(self, team: dict[str, Any], role: str, seed: int = 0) -> None:
        self.team, self.role = team, role
        self.partner = "b" if role == "a" else "a"
        self.greedy = GreedyPolicy(seed)

    def act(self, observation: dict[str, Any], legal: list[Action]) -> Action:
        seat = observation["seat"]
        self.team[self.role] = seat
        partner = self.team.get(self.partner)
        if partner is None or partner == seat or partner >= len(observation["counts"]):
            return self.greedy.act(observation, legal)
        counts = list(observation["counts"])
        counts[partner] = max(counts)  # no danger from the partner
        choice = self.greedy.act({**observation, "counts": counts}, legal)
        others = [n for s, n in enumerate(counts) if s not in (seat, partner)]
        if self.role == "a" or min(others) <= CLOSE:
            return choice
        plays = [a for a in legal if isinstance(a, list)]
        if "pass" in legal:
            return "pass"
        singles = [p for p in plays if len(p) == 1]
        return singles[0] if singles else choice


#: Another player with this many cards or fewer is close to going out (greedy's measure).
CLOSE = 3
