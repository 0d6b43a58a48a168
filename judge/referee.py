"""The referee: an engine and one channel per bot become a match result nobody can dispute.

``play_match(spec, bots, start)`` is the one entry point, used alike by the local runner
(``python -m judge play``) and the service's worker. It greets every bot, plays
``spec.games`` games (times the number of seat rotations in a duplicate match), asks each
seat to act through its bot's channel under the clock, and turns every misbehaviour into a
recorded fault: the faulty bot is retired for the rest of the match and the engine's
fallback action is played for its seat (rules.md). Nothing a bot does makes the referee
raise. The outcome is JSON-ready and carries the replay record (see ``judge.replay``).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Final

import judge
from judge import bot_clock, fault_hints, protocol
from judge.bot_clock import WALL_FACTOR, CpuReader, Mark, Spent
from judge.channel import BotChannel, BotGone, BotLineTooLong, BotTimeout
from judge.engine import Action, Game, JSONDict, Result
from judge.games import new_game
from judge.protocol import FaultKind
from judge.rng import derive_seed

#: The channel's fault kinds (protocol.FaultKind holds every kind).
TIMEOUT: Final = FaultKind.TIMEOUT
CLOSED: Final = FaultKind.CLOSED
LINE_TOO_LONG: Final = FaultKind.LINE_TOO_LONG
CHANNEL_ERROR: Final = FaultKind.CHANNEL_ERROR
#: How much of an offending line a fault keeps.
FAULT_TEXT_CHARS: Final = 200
#: How much of a bot's standard error the outcome keeps (the channel caps it too).
LOG_CHARS: Final = 64 << 10

#: Makes the engine of a game: (seed, players, variant, options) -> Game.
GameMaker = Callable[[int, int, "str | None", Mapping[str, Any]], Game]
#: Starts bot number ``index`` (in ``bots`` order) and gives back its channel.
StartBot = Callable[[int], BotChannel]
#: Told, before each block's ``start`` calls, which bots it will start (not retired ones).
AnnounceStarts = Callable[[list[int]], None]
#: Asked before every move and block: True when the match must stop (it was cancelled).
StopCheck = Callable[[], bool]
#: Asked when a bot's clock ran out over the window (start, end) of clock values: why
#: the host, not the bot, made that window long ("" when nothing says so): for example
#: ``judge.stalls.StallWatch.stalled``.
HostCheck = Callable[[float, float], str]


class MatchStopped(Exception):
    """The caller's ``stop`` check asked the match to stop; there is no outcome."""


class HostStalled(Exception):
    """A bot's clock ran out while the host was stalled (the ``host`` check said so): no
    bot is to blame and the match has no fair outcome; void it and play it again."""


@dataclass(frozen=True)
class TimeControl:
    """The clocks: a start-up limit, a per-move limit, and a bank for the whole match.

    A move that takes longer than ``move_s`` draws the excess from the bank; a bot whose
    answer has not come when both are spent times out. The defaults suit a Python bot.
    The seconds are the bot's CPU seconds where its channel counts them, with a wall
    clock ``bot_clock.WALL_FACTOR`` times as long behind them; else wall seconds.
    """

    startup_s: float = 10.0
    move_s: float = 1.0
    bank_s: float = 10.0

    def __post_init__(self) -> None:
        if not (self.startup_s > 0 and self.move_s > 0 and self.bank_s >= 0):
            raise ValueError(
                f"a time control needs start-up and move limits above 0 and a bank of at "
                f"least 0, not {self.startup_s}, {self.move_s} and {self.bank_s} seconds"
            )

    def to_json(self) -> JSONDict:
        return {"startup_s": self.startup_s, "move_s": self.move_s, "bank_s": self.bank_s}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TimeControl:
        return cls(float(data["startup_s"]), float(data["move_s"]), float(data["bank_s"]))


@dataclass(frozen=True)
class MatchSpec:
    """What to play: game, variant, options, players (default: one per bot), seed, games.

    Game ``g`` (of ``games``) is dealt from ``derive_seed(seed, g)``; with ``duplicate``
    each deal is played once per seat rotation (see ``rotations``).
    """

    game: str
    seed: int
    variant: str | None = None
    players: int | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    games: int = 1
    duplicate: bool = False
    time: TimeControl = field(default_factory=TimeControl)

    def __post_init__(self) -> None:
        if self.games < 1:
            raise ValueError(f"a match needs at least 1 game, not {self.games}")


@dataclass(frozen=True)
class BotInfo:
    """A bot as the record names it: a display name and the hash of its code."""

    name: str
    content_hash: str = ""


@dataclass(frozen=True)
class Fault:
    """A bot's misbehaviour: what kind, why, the offending text, and where it happened.

    ``game`` and ``move`` are None for a fault during start-up (before the first game);
    ``move`` is None for a fault outside a move (sending the end of a game).
    """

    bot: int
    kind: str
    reason: str
    text: str = ""
    game: int | None = None
    move: int | None = None
    seat: int | None = None

    def to_json(self) -> JSONDict:
        return {
            "bot": self.bot,
            "kind": self.kind,
            "reason": self.reason,
            "text": self.text,
            "game": self.game,
            "move": self.move,
            "seat": self.seat,
        }


@dataclass(frozen=True)
class MatchOutcome:
    """The result of a match, per bot (in ``bots`` order), and its replay record.

    ``scores`` are each bot's total over all games, ``places`` follow them (1 is best,
    ties share). ``games`` lists each game's deal, seating and per-seat result.
    ``logs`` holds each bot's standard error: show it only to the bot's owner; it is not
    part of the record, which may be shown to anyone once the match is over.
    ``log_games`` says, per bot, where each game's part of its log starts, as
    [game, character offset] (a game in which the bot said nothing has no entry).
    """

    game: str
    variant: str
    seed: int
    bots: list[str]
    scores: list[float]
    places: list[int]
    faults: list[Fault]
    games: list[JSONDict]
    record: JSONDict
    logs: list[str]
    log_games: list[list[list[int]]] = field(default_factory=list)
    #: What the next part of a match played in parts starts from (``Carried``): each
    #: bot's state after the last block played. Not part of ``to_json``.
    carry: list[JSONDict] = field(default_factory=list)

    def to_json(self) -> JSONDict:
        return {
            "game": self.game,
            "variant": self.variant,
            "players": len(self.bots),
            "seed": self.seed,
            "bots": list(self.bots),
            "scores": list(self.scores),
            "places": list(self.places),
            "faults": [fault.to_json() for fault in self.faults],
            "games": list(self.games),
            "logs": list(self.logs),
            "log_games": [list(marks) for marks in self.log_games],
        }


def rotations(players: int) -> list[list[int]]:
    """The seatings of a duplicate match: ``seating[seat]`` is the bot in that seat.

    Up to four players, every cyclic rotation (two players: both ways round; Big Two:
    four). Larger tables use a Williams design: each bot sits in each seat equally often
    and follows each other bot directly equally often (n seatings for even n, 2n for odd).
    """
    if players <= 4:
        return [[(seat + shift) % players for seat in range(players)] for shift in range(players)]
    first = [0]
    low, high = 1, players - 1
    while len(first) < players:
        first.append(low)
        low += 1
        if len(first) < players:
            first.append(high)
            high -= 1
    rows = [[(bot + shift) % players for bot in first] for shift in range(players)]
    if players % 2:
        rows += [list(reversed(row)) for row in rows]
    return rows


def schedule(spec: MatchSpec, players: int) -> list[tuple[int, list[int]]]:
    """Every game of the match in order, as (deal number, seating).

    A duplicate match plays all its deals in one seating, then all again in the next, and
    so on: each seating is a block played by fresh bot processes (see ``blocks``).
    """
    seatings = rotations(players) if spec.duplicate else [list(range(players))]
    return [(deal, seating) for seating in seatings for deal in range(spec.games)]


def blocks(plan: Sequence[tuple[int, list[int]]]) -> list[list[tuple[int, int, list[int]]]]:
    """The plan cut into runs of one seating, each game as (index in match, deal, seating).

    Every block starts new bot processes, so a bot can never remember a deal from one
    seating and exploit it when the same deal comes back with the seats rotated.
    """
    runs: list[list[tuple[int, int, list[int]]]] = []
    for index, (deal, seating) in enumerate(plan):
        if not runs or runs[-1][-1][2] != seating:
            runs.append([])
        runs[-1].append((index, deal, seating))
    return runs


def split_blocks(count: int, parts: int) -> list[range]:
    """``count`` blocks (a duplicate match's seatings) cut into at most ``parts`` runs of
    consecutive blocks, as even as can be (the first runs one longer): the parts of a match
    played on several hosts, in order."""
    parts = max(1, min(parts, count))
    size, extra = divmod(count, parts)
    runs, start = [], 0
    for part in range(parts):
        end = start + size + (1 if part < extra else 0)
        runs.append(range(start, end))
        start = end
    return runs


@dataclass(frozen=True)
class Carried:
    """What one part of a match played in parts (``play_match``'s ``part``) hands to the
    next, so that the parts together play exactly the match played whole: the games played
    so far (full records, in order), the faults so far, and each bot's state (``retired``,
    ``bank``, ``wall_bank``, ``log``, ``log_games``: a retired bot stays retired, banks
    and logs carry over, as between a whole match's blocks)."""

    games: list[JSONDict]
    faults: list[JSONDict]
    bots: list[JSONDict]


class _Gone:
    """The channel of a bot carried into a part before it is started (or never, retired)."""

    def send(self, line: bytes) -> None:
        raise BotGone("not started in this part")

    def recv(self, deadline: float) -> bytes:
        raise BotGone("not started in this part")

    def close(self) -> None:
        return None

    def stderr(self) -> bytes:
        return b""


def default_game_maker(name: str) -> GameMaker:
    """The registry's engine of game ``name``."""

    def make(seed: int, players: int, variant: str | None, options: Mapping[str, Any]) -> Game:
        return new_game(name, seed, players=players, variant=variant, options=options)

    return make


def shorten(text: bytes | str, limit: int = FAULT_TEXT_CHARS) -> str:
    """Offending text as printable, truncated text (bytes that are not UTF-8 are escaped)."""
    if isinstance(text, bytes):
        text = text[: limit * 4].decode("utf-8", errors="backslashreplace")
    return text if len(text) <= limit else text[:limit] + f"... [{len(text) - limit} more]"


@dataclass
class _Bot:
    """The referee's view of one bot during a match."""

    index: int
    channel: BotChannel
    bank: float
    #: The wall clock's bank behind a CPU clock (``bot_clock``).
    wall_bank: float = 0.0
    #: The channel's CPU counter (None: the bot is timed on the wall clock).
    cpu: CpuReader | None = None
    retired: bool = False
    log: str = ""
    closed: bool = False
    #: Where each game's part of this block's standard error starts: (game, byte offset).
    marks: list[tuple[int, int]] = field(default_factory=list)
    #: Where each game's part of ``log`` starts: [game, character offset].
    log_games: list[list[int]] = field(default_factory=list)


class _Retire(Exception):
    """Internal: the current bot must be retired with this fault (never escapes).

    ``wall``: a timeout of the wall clock, which a stalled host can cause (the referee
    asks its ``host`` check); a bot over its CPU clock is late whatever the host did."""

    def __init__(
        self, kind: FaultKind, reason: str, text: bytes | str = b"", wall: bool = False
    ) -> None:
        super().__init__(reason)
        self.kind = kind
        self.reason = reason
        self.text = shorten(text)
        self.wall = wall


@dataclass(frozen=True)
class _Ask:
    """One question's clocks: when it was asked, the bot's limit, the wall's, and what
    the limit is called in a fault; ``after_check``: see ``bot_clock.await_line``."""

    since: Mark
    limit: float
    wall_limit: float
    what: str
    after_check: bool = True


def _exchange(
    bot: _Bot, line: bytes | None, ask: _Ask, clock: bot_clock.Clock
) -> tuple[bytes, Spent]:
    """Send ``line`` (if any) and wait for the answer under the bot's clocks, turning
    channel trouble into _Retire."""
    channel = bot.channel
    try:
        if line is not None:
            channel.send(line)
        return bot_clock.await_line(
            channel,
            bot.cpu,
            ask.since,
            ask.limit,
            ask.wall_limit,
            ask.what,
            clock,
            after_check=ask.after_check,
        )
    except bot_clock.OutOfTime as late:
        raise _Retire(TIMEOUT, str(late), wall=late.wall) from None
    except BotTimeout as error:
        raise _Retire(TIMEOUT, f"no answer in time ({error})", wall=True) from None
    except BotGone as error:
        raise _Retire(CLOSED, f"the bot's output ended ({error})") from None
    except BotLineTooLong as error:
        raise _Retire(LINE_TOO_LONG, str(error), error.head) from None
    except Exception as error:  # a channel must never break the referee
        raise _Retire(CHANNEL_ERROR, f"channel failure: {error!r}") from None


class Referee:
    """Plays one match; use ``play_match`` (this class only holds the match's state)."""

    def __init__(
        self,
        spec: MatchSpec,
        bots: Sequence[BotInfo],
        start: StartBot,
        make_game: GameMaker,
        clock: Callable[[], float],
        announce: AnnounceStarts | None = None,
        stop: StopCheck | None = None,
        host: HostCheck | None = None,
        part: range | None = None,
        carried: Carried | None = None,
    ) -> None:
        self.spec = spec
        self.part = part
        self.carried = carried
        #: Closes a block's bots in parallel (``_close_all``), its threads kept for the
        #: match's later blocks: starting 4 threads a block cost more CPU than the rest
        #: of closing a pooled bot.
        self._closer: ThreadPoolExecutor | None = None
        self.announce = announce
        self.stop = stop
        self.host = host
        self.infos = list(bots)
        self.players = len(self.infos) if spec.players is None else spec.players
        if self.players != len(self.infos):
            raise ValueError(f"{self.players} players need {self.players} bots, not {len(bots)}")
        self.start = start
        self.make_game = make_game
        self.clock = clock
        self.bots: list[_Bot] = []
        self.faults: list[Fault] = []
        self.game_records: list[JSONDict] = []

    # Faults.

    def _retire(self, bot: _Bot, retire: _Retire, **where: int | None) -> None:
        self.faults.append(Fault(bot.index, retire.kind, retire.reason, retire.text, **where))
        bot.retired = True
        self._close(bot)

    def _close(self, bot: _Bot) -> None:
        """Stop the bot's process (once) and keep its log, appended to earlier blocks' logs,
        noting where each game's part starts."""
        if bot.closed:
            return
        bot.closed = True
        with contextlib.suppress(Exception):  # best effort; the backend reaps what is left
            bot.channel.close()
        try:
            raw = bot.channel.stderr()
        except Exception:
            raw = b""
        marks = bot.marks or [(-1, 0)]  # -1: before any game (a start that failed)
        ends = [offset for _, offset in marks[1:]] + [len(raw)]
        log = bot.log
        for (game, start), end in zip(marks, ends, strict=True):
            part = raw[min(start, len(raw)) : max(start, min(end, len(raw)))]
            if part and game >= 0:
                bot.log_games.append([game, len(log)])
            log += part.decode("utf-8", errors="backslashreplace")
        bot.marks = []
        bot.log = shorten(log, LOG_CHARS)

    def _mark(self, bot: _Bot, game: int) -> None:
        """Note that ``game``'s part of the bot's log starts here (once per game).

        The bot answers in order, so by its first answer in a game it has written what it
        had to say at the end of the one before; a line it writes while choosing that
        first move may still fall in the earlier game's part."""
        if bot.marks and bot.marks[-1][0] >= game:
            return
        try:
            bot.marks.append((game, len(bot.channel.stderr())))
        except Exception:
            return

    def _send(self, bot: _Bot, message: JSONDict, **where: int | None) -> None:
        """Send a message that needs no answer; a failure retires the bot."""
        if bot.retired:
            return
        try:
            bot.channel.send(protocol.encode(message))
        except Exception as error:
            self._retire(
                bot, _Retire(CLOSED, f"could not send {message['type']}: {error}"), **where
            )

    def _check_stop(self) -> None:
        if self.stop is not None and self.stop():
            raise MatchStopped("the match was stopped before it ended")

    def _host_stalled(self, since: float) -> bool:
        """Whether the host check says the worker stalled between ``since`` and now."""
        return self.host is not None and bool(self.host(since, self.clock()))

    def _blame_host(self, retire: _Retire, since: float) -> None:
        """Raise HostStalled when a timeout's window (``since`` until now) overlapped a
        stall of the host: the bot's clock ran while nobody could read its answer."""
        if retire.kind != TIMEOUT or not retire.wall or self.host is None:
            return
        why = self.host(since, self.clock())
        if why:
            raise HostStalled(
                f"a bot's clock ran out ({retire.reason}) while {why}: the host's fault, "
                "not the bot's"
            )

    # Phases of the match.

    def _greet(self, first_game: Game, first_seating: list[int], games: int) -> None:
        time_control = self.spec.time.to_json()
        startup = self.spec.time.startup_s
        asks = {}
        for bot in self.bots:
            if bot.retired:
                continue
            hello = protocol.hello(
                bot=bot.index,
                seat=first_seating.index(bot.index),
                game=first_game.name,
                variant=first_game.variant,
                options=first_game.options,
                players=self.players,
                games=games,
                time=time_control,
            )
            since = bot_clock.mark(bot.cpu, self.clock)
            asks[bot.index] = _Ask(
                since, startup, WALL_FACTOR * startup, "the start-up limit", after_check=False
            )
            self._send(bot, hello)
        for bot in self.bots:
            if bot.retired:
                continue
            ask = asks[bot.index]
            try:
                protocol.parse_ready(_exchange(bot, None, ask, self.clock)[0])
            except _Retire as retire:
                self._blame_host(retire, ask.since.wall)
                self._retire(bot, retire)
            except protocol.BadAnswer as bad:
                self._retire(bot, _Retire(bad.kind, str(bad)))

    def _ask(self, bot: _Bot, game: Game, index: int, move: int, seat: int) -> tuple[Action, float]:
        """The bot's legal action and the time it took; raises _Retire on any fault."""
        legal = game.legal_actions(seat)
        clock = self.spec.time
        message = protocol.act(
            game=index,
            move=move,
            seat=seat,
            observation=game.observation(seat),
            legal=legal,
            move_s=clock.move_s,
            bank_s=bot.bank,
        )
        since = bot_clock.mark(bot.cpu, self.clock)
        wall_move = WALL_FACTOR * clock.move_s
        ask = _Ask(
            since, clock.move_s + bot.bank, wall_move + bot.wall_bank, "the move limit and bank"
        )
        try:
            line, spent = _exchange(bot, protocol.encode(message), ask, self.clock)
        except _Retire as retire:
            self._blame_host(retire, since.wall)
            raise
        over = max(0.0, spent.charged - clock.move_s)
        wall_over = max(0.0, spent.wall - wall_move) if spent.cpu is not None else over
        if wall_over and self._host_stalled(since.wall):
            # The worker stalled during the move: that wall time is the host's, not the
            # bot's (its CPU seconds, when counted, did not grow while it stalled).
            wall_over = 0.0
            over = over if spent.cpu is not None else 0.0
        bot.bank -= over
        if spent.cpu is not None:
            bot.wall_bank -= wall_over
        used = spent.wall
        try:
            return protocol.parse_action(line, legal), used
        except protocol.BadAnswer as bad:
            reason = str(bad)
            if bad.sent is not None and not fault_hints.is_sure(bad.hint):
                reason += fault_hints.rules_reason(game, seat, bad.sent)
            raise _Retire(bad.kind, reason, line) from None

    def _play_game(self, index: int, deal: int, seating: list[int], game: Game) -> JSONDict:
        times: list[float | None] = []
        while not game.is_over():
            self._check_stop()
            seat = game.to_act()[0]
            bot = self.bots[seating[seat]]
            action: Action | None = None
            used: float | None = None
            if not bot.retired:
                try:
                    action, used = self._ask(bot, game, index, len(times), seat)
                except _Retire as retire:
                    self._mark(bot, index)
                    self._retire(bot, retire, game=index, move=len(times), seat=seat)
                else:
                    self._mark(bot, index)
            if action is None:
                game.apply(seat, game.fallback_action(seat))
            else:  # an element of the legal list the bot was sent: checked already
                game.apply_listed(seat, action)
            times.append(None if used is None else round(used, 6))
        result = game.result()
        revealed = game.revealed()  # once a game, not once a seat: the same for all
        for seat, bot_index in enumerate(seating):
            over = protocol.game_over(
                game=index,
                seat=seat,
                scores=result.scores,
                places=result.places,
                revealed=revealed,
            )
            self._send(self.bots[bot_index], over, game=index, seat=seat)
        return {
            "index": index,
            "deal": deal,
            "seating": list(seating),
            "record": game.record(),
            "times": times,
            "result": result.to_json(),
        }

    def _new_game(self, deal: int) -> Game:
        seed = derive_seed(self.spec.seed, deal)
        return self.make_game(seed, self.players, self.spec.variant, self.spec.options)

    def _resume(self, carried: Carried) -> None:
        """Start from where the match's earlier parts left it (``Carried``)."""
        self.game_records = [dict(played) for played in carried.games]
        self.faults = [Fault(**fault) for fault in carried.faults]
        for index, state in enumerate(carried.bots):
            bot = _Bot(index, _Gone(), float(state["bank"]), float(state["wall_bank"]))
            bot.retired, bot.closed = bool(state["retired"]), True
            bot.log, bot.log_games = str(state["log"]), [list(m) for m in state["log_games"]]
            self.bots.append(bot)

    def _carry(self) -> list[JSONDict]:
        return [
            {
                "retired": bot.retired,
                "bank": bot.bank,
                "wall_bank": bot.wall_bank,
                "log": bot.log,
                "log_games": [list(mark) for mark in bot.log_games],
            }
            for bot in self.bots
        ]

    def run(self) -> MatchOutcome:
        first = self._new_game(0)  # refuses a bad variant or option before any bot starts
        runs = blocks(schedule(self.spec, self.players))
        chosen = runs if self.part is None else runs[self.part.start : self.part.stop]
        if not chosen:
            raise ValueError(f"part {self.part} holds none of the match's {len(runs)} blocks")
        if self.carried is not None:
            self._resume(self.carried)
        try:
            for block in chosen:
                self._check_stop()
                self._start_bots()
                for bot in self.bots:
                    bot.marks = [] if bot.retired else [(block[0][0], 0)]
                self._greet(first, block[0][2], len(block))
                for index, deal, seating in block:
                    game = first if index == 0 else self._new_game(deal)
                    self.game_records.append(self._play_game(index, deal, seating, game))
                totals = self._totals()
                for bot in self.bots:
                    self._send(bot, protocol.match_over(bot=bot.index, **totals.to_json()))
                self._close_all()
        finally:
            try:
                self._close_all()
            finally:
                if self._closer is not None:
                    self._closer.shutdown()
        return self._outcome(first, totals)

    def _close_all(self) -> None:
        """Close every bot still open, all at once, and keep their logs.

        Stopping a container takes 60-150 ms, so one after another a table of six would
        add most of a second to every block. Each bot is closed by exactly one thread and
        ``_close`` touches nothing but that bot, so the outcome is the same as in order.
        """
        still_open = [bot for bot in self.bots if not bot.closed]
        if len(still_open) < 2:
            for bot in still_open:
                self._close(bot)
            return
        if self._closer is None:
            self._closer = ThreadPoolExecutor(len(self.infos), thread_name_prefix="close-bot")
        for done in [self._closer.submit(self._close, bot) for bot in still_open]:
            done.result()

    def _start_bots(self) -> None:
        """Start a fresh process for every bot not retired; banks and logs carry over."""
        first_block = not self.bots
        wanted = (
            list(range(len(self.infos)))
            if first_block
            else [bot.index for bot in self.bots if not bot.retired]
        )
        if self.announce is not None:
            self.announce(wanted)
        bank = self.spec.time.bank_s
        for index in wanted:
            if first_block:
                self.bots.append(_Bot(index, self.start(index), bank, WALL_FACTOR * bank))
            else:
                bot = self.bots[index]
                bot.channel, bot.closed = self.start(index), False
            bot = self.bots[index]
            bot.cpu = bot_clock.cpu_reader(bot.channel)

    def _totals(self) -> Result:
        totals = [0.0] * len(self.infos)
        for played in self.game_records:
            for seat, bot_index in enumerate(played["seating"]):
                totals[bot_index] += played["result"]["scores"][seat]
        return Result.from_scores([_tidy(total) for total in totals])

    def _outcome(self, first: Game, totals: Result) -> MatchOutcome:
        header = {
            "format": "cardjudge-match",
            "version": 1,
            "engine_version": judge.__version__,
            "protocol": protocol.VERSION,
            "game": first.name,
            "variant": first.variant,
            "players": self.players,
            "options": dict(first.options),
            "seed": self.spec.seed,
            "games": self.spec.games,
            "duplicate": self.spec.duplicate,
            "seeds": [derive_seed(self.spec.seed, deal) for deal in range(self.spec.games)],
            "bots": [{"name": info.name, "hash": info.content_hash} for info in self.infos],
            "time": self.spec.time.to_json(),
        }
        faults = [fault.to_json() for fault in self.faults]
        games = [
            {key: played[key] for key in ("index", "deal", "seating", "result")}
            for played in self.game_records
        ]
        record = {
            "header": header,
            "games": self.game_records,
            "faults": faults,
            "result": {"scores": list(totals.scores), "places": list(totals.places)},
        }
        return MatchOutcome(
            game=first.name,
            variant=first.variant,
            seed=self.spec.seed,
            bots=[info.name for info in self.infos],
            scores=list(totals.scores),
            places=list(totals.places),
            faults=list(self.faults),
            games=games,
            record=record,
            logs=[bot.log for bot in self.bots],
            log_games=[bot.log_games for bot in self.bots],
            carry=self._carry(),
        )


def _tidy(total: float) -> float:
    """Whole totals as ints, so records read 3 rather than 3.0."""
    return int(total) if float(total).is_integer() else total


def play_match(
    spec: MatchSpec,
    bots: Sequence[BotInfo],
    start: StartBot,
    *,
    make_game: GameMaker | None = None,
    clock: Callable[[], float] = time.monotonic,
    announce: AnnounceStarts | None = None,
    stop: StopCheck | None = None,
    host: HostCheck | None = None,
    part: range | None = None,
    carried: Carried | None = None,
) -> MatchOutcome:
    """Play a whole match and return its outcome (call ``.to_json()`` to store it).

    ``spec`` says what to play; ``bots`` names the bots (one per seat, in seat order for
    the first game); ``start(i)`` starts bot ``i`` and returns its channel (a
    ``judge.channel.BotChannel``: wrap a sandbox channel in
    ``judge.sandbox_bridge.SandboxChannel``). Every channel is closed before this returns.

    Bots' misbehaviour never raises: it becomes a ``Fault`` in the outcome. This raises
    only for a bad request (``judge.engine.GameError`` for an unknown game, variant,
    option or table size; ValueError when the bots do not fill the table) or when
    ``start`` itself raises (the backend could not run a bot: an infrastructure problem
    worth retrying, not the bot's fault); channels already started are closed first.

    ``make_game`` replaces the registry's engine (tests use toy games); ``clock`` is the
    time source for every deadline and must be the one the channels' ``recv`` uses.
    ``announce``, if given, is told before each block which bots ``start`` will be asked
    for (all of them, then those not retired), so a caller can start them together.
    ``stop``, if given, is asked before every move and every block; when it says True the
    bots are closed and MatchStopped is raised (a cancelled match ends between moves).
    ``host``, if given, is asked when a bot times out whether the host was stalled over
    that window; when it says why, the bots are closed and HostStalled is raised (the
    match is nobody's: play it again).

    ``part``, if given, plays only these blocks (seatings: ``split_blocks``) of the match,
    starting from ``carried`` (the ``Carried`` of the part before, None for the first):
    a duplicate match's rotations played on several hosts, so that no host's caches carry
    a deal from one rotation to the next. The outcome then covers every game played so far,
    and its ``carry`` starts the next part; the last part's outcome is the whole match's,
    equal to the outcome of the match played whole.
    """
    maker = make_game or default_game_maker(spec.game)
    referee = Referee(spec, bots, start, maker, clock, announce, stop, host, part, carried)
    return referee.run()
