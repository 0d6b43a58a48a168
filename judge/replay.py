"""Match records: checking them by re-simulation, and replaying one seat to a bot.

A match record (``MatchOutcome.record``) is JSON: a header, each game's engine record
with per-action times and the seating, the faults and the result. ``verify`` plays every
game again from its seed and recorded actions and checks each result and the match
totals. ``compare_seat`` sends a bot exactly the ``act`` messages seat K received and
lists where its answers differ from the recorded actions; ``compare_bot`` does the same
for bot I, following it from seat to seat as a duplicate match rotates the seating.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from judge import protocol
from judge.channel import BotChannel
from judge.engine import Action, Game, GameError, IllegalActionError, JSONDict, Result
from judge.referee import GameMaker, default_game_maker
from judge.rng import derive_seed


class BadRecord(ValueError):
    """A record that is not a match record this judge can read."""


def _maker(record: Mapping[str, Any], make_game: GameMaker | None) -> GameMaker:
    try:
        header = record["header"]
        return make_game or default_game_maker(header["game"])
    except (KeyError, TypeError):
        raise BadRecord("not a match record: it has no header naming the game") from None


def _replayed(game_record: Mapping[str, Any], make: GameMaker) -> Game:
    game = make(
        game_record["seed"], game_record["players"], game_record["variant"], game_record["options"]
    )
    for seat, chosen in game_record["actions"]:
        game.apply(seat, chosen)
    return game


def verify(record: Mapping[str, Any], make_game: GameMaker | None = None) -> list[str]:
    """Every disagreement between the record and a re-simulation (empty: it verifies)."""
    make = _maker(record, make_game)
    header = record["header"]
    problems: list[str] = []
    totals = [0.0] * len(header["bots"])
    for played in record["games"]:
        label = f"game {played['index']}"
        game_record = played["record"]
        if game_record["seed"] != derive_seed(header["seed"], played["deal"]):
            problems.append(
                f"{label}: its seed is not the one the match seed gives deal {played['deal']}"
            )
        try:
            game = _replayed(game_record, make)
        except (GameError, IllegalActionError, KeyError, TypeError, ValueError) as error:
            problems.append(f"{label}: does not replay: {error}")
            continue
        if game.deck_orders != game_record.get("deck_orders", game.deck_orders):
            problems.append(f"{label}: the recorded deals differ from those of its seed")
        if not game.is_over():
            problems.append(f"{label}: the recorded actions do not finish the game")
            continue
        if game.result().to_json() != played["result"]:
            problems.append(
                f"{label}: recorded result {played['result']} but replay gives "
                f"{game.result().to_json()}"
            )
        for seat, bot in enumerate(played["seating"]):
            totals[bot] += game.result().scores[seat]
    expected = Result.from_scores(totals).to_json()
    recorded = record["result"]
    if [float(s) for s in recorded["scores"]] != [float(s) for s in expected["scores"]]:
        problems.append(f"match totals: recorded {recorded['scores']}, replay gives {totals}")
    elif recorded["places"] != expected["places"]:
        problems.append(
            f"match places: recorded {recorded['places']}, replay gives {expected['places']}"
        )
    return problems


@dataclass(frozen=True)
class SeatMove:
    """One decision of a seat in a record: the act message it got and what was played."""

    game: int
    move: int
    message: JSONDict
    recorded: Action
    fallback: bool


def seat_moves(
    record: Mapping[str, Any], seat: int, make_game: GameMaker | None = None
) -> Iterator[SeatMove | JSONDict]:
    """The messages seat ``seat`` received, in order: SeatMoves, then each game_over."""
    make = _maker(record, make_game)
    for played in record["games"]:
        yield from _game_messages(record, played, seat, make)


def _seat_of(played: Mapping[str, Any], bot: int) -> int:
    seating: list[int] = played["seating"]
    if bot not in seating:
        raise BadRecord(f"game {played['index']} seats bots {seating}, not bot {bot}")
    return seating.index(bot)


def _game_messages(
    record: Mapping[str, Any], played: Mapping[str, Any], seat: int, make: GameMaker
) -> Iterator[SeatMove | JSONDict]:
    """What seat ``seat`` received in one recorded game: SeatMoves, then its game_over."""
    time_control = record["header"]["time"]
    game_record = played["record"]
    game = make(
        game_record["seed"],
        game_record["players"],
        game_record["variant"],
        game_record["options"],
    )
    for move, ((who, chosen), used) in enumerate(
        zip(game_record["actions"], played["times"], strict=True)
    ):
        if who == seat:
            message = protocol.act(
                game=played["index"],
                move=move,
                seat=seat,
                observation=game.observation(seat),
                legal=game.legal_actions(seat),
                move_s=time_control["move_s"],
                bank_s=time_control["bank_s"],
            )
            yield SeatMove(played["index"], move, message, chosen, used is None)
        game.apply(who, chosen)
    result = game.result()
    yield protocol.game_over(
        game=played["index"],
        seat=seat,
        scores=result.scores,
        places=result.places,
        revealed=game.revealed(),
    )


@dataclass(frozen=True)
class Difference:
    """A decision where the bot's answer is not what the record holds."""

    game: int
    move: int
    recorded: Action
    answered: str

    def __str__(self) -> str:
        return (
            f"game {self.game} move {self.move}: recorded {self.recorded!r}, "
            f"the bot answered {self.answered}"
        )


def compare_seat(
    record: Mapping[str, Any],
    seat: int,
    channel: BotChannel,
    clock: Callable[[], float],
    make_game: GameMaker | None = None,
) -> tuple[int, list[Difference]]:
    """Feed seat ``seat``'s recorded messages to a bot: (decisions asked, differences).

    The bot is greeted as seat ``seat`` and gets the full time control for every move
    (the bank is not drawn down). A bot that fails to answer stops the comparison with a
    difference saying why. The channel is left open; the caller closes it.
    """
    hello = _hello(record, bot=seat, seat=seat, games=len(record["games"]))
    return _feed(record, hello, seat_moves(record, seat, make_game), channel, clock)


def compare_bot(
    record: Mapping[str, Any],
    bot: int,
    start: Callable[[], BotChannel],
    clock: Callable[[], float],
    make_game: GameMaker | None = None,
) -> tuple[int, list[Difference]]:
    """Feed bot ``bot``'s recorded messages to a bot, wherever it sat: (decisions asked,
    differences).

    As in the match, each block of games in one seating (a duplicate match has one per
    rotation) goes to a fresh process from ``start``, greeted as bot ``bot`` in that
    block's seat; each is closed after its block. A process that fails to answer ends
    its block with a difference saying why; the next block starts afresh.
    """
    make = _maker(record, make_game)
    asked = 0
    differences: list[Difference] = []
    for block in _blocks(record["games"]):
        seat = _seat_of(block[0], bot)
        hello = _hello(record, bot=bot, seat=seat, games=len(block))
        items = (item for played in block for item in _game_messages(record, played, seat, make))
        channel = start()
        try:
            block_asked, block_differences = _feed(record, hello, items, channel, clock)
        finally:
            channel.close()
        asked += block_asked
        differences += block_differences
    return asked, differences


def _blocks(games: list[Mapping[str, Any]]) -> list[list[Mapping[str, Any]]]:
    """Recorded games cut into runs of one seating, as the referee played them."""
    runs: list[list[Mapping[str, Any]]] = []
    for played in games:
        if not runs or runs[-1][-1]["seating"] != played["seating"]:
            runs.append([])
        runs[-1].append(played)
    return runs


def _hello(record: Mapping[str, Any], *, bot: int, seat: int, games: int) -> JSONDict:
    header = record["header"]
    return protocol.hello(
        bot=bot,
        seat=seat,
        game=header["game"],
        variant=header["variant"],
        options=header["options"],
        players=header["players"],
        games=games,
        time=header["time"],
    )


def _feed(
    record: Mapping[str, Any],
    hello: JSONDict,
    items: Iterator[SeatMove | JSONDict],
    channel: BotChannel,
    clock: Callable[[], float],
) -> tuple[int, list[Difference]]:
    """Greet the bot, then send it ``items``, comparing its answers with the record."""
    time_control = record["header"]["time"]
    asked = 0
    differences: list[Difference] = []
    try:
        channel.send(protocol.encode(hello))
        protocol.parse_ready(channel.recv(clock() + time_control["startup_s"]))
    except Exception as error:
        return 0, [Difference(-1, -1, "ready", f"no ready: {error}")]
    allowance = time_control["move_s"] + time_control["bank_s"]
    for item in items:
        if not isinstance(item, SeatMove):
            channel.send(protocol.encode(item))
            continue
        asked += 1
        try:
            channel.send(protocol.encode(item.message))
            line = channel.recv(clock() + allowance)
            answered: Any = protocol.parse_action(line, item.message["legal"])
        except Exception as error:
            differences.append(
                Difference(item.game, item.move, item.recorded, f"nothing ({error})")
            )
            return asked, differences
        if answered != item.recorded:
            differences.append(Difference(item.game, item.move, item.recorded, repr(answered)))
    return asked, differences
