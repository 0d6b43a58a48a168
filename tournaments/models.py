"""What the service keeps: bots and their immutable versions, tournaments, matches, ratings.

State changes go through the rooms' action modules (bots/bot_actions.py,
competitions/competition_actions.py, play/lease.py, play/queued_work.py; atomic, follow-up
work after commit: docs/architecture.md); the models only describe the rows and the few
facts derived from one row.
"""

from __future__ import annotations

import hashlib
import io
import zipfile
from collections.abc import Collection, Mapping
from typing import Any

from django.conf import settings
from django.db import models
from django.utils import timezone

from tournaments.rating.model.results import Record
from tournaments.rating.model.skill import START_DEVIATION, Skill, interval, is_provisional


class Bot(models.Model):
    """A named player owned by a user (or a house bot, with no owner); code lives in versions."""

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="bots",
    )
    game = models.CharField(max_length=32)
    name = models.CharField(max_length=64)
    #: The name of a judge house policy (judge.bots) for house bots; empty for uploaded bots.
    house_policy = models.CharField(max_length=64, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    retired = models.BooleanField(default=False)

    class Meta:
        constraints = (
            models.UniqueConstraint(fields=["owner", "game", "name"], name="unique_bot_name"),
        )
        # The API's filters, each with the id order its pages follow.
        indexes = (
            models.Index(fields=["game", "id"], name="bot_game_id"),
            models.Index(fields=["retired", "id"], name="bot_retired_id"),
            models.Index(fields=["name"], name="bot_name"),  # the admin's search
        )

    def __str__(self) -> str:
        return f"{self.name} ({self.game})"


def bundle_code(files: dict[str, bytes]) -> tuple[bytes, str]:
    """A deterministic zip of ``files`` and the SHA-256 of its content (same code, same hash).

    The hash covers the file names and contents only, so zip metadata cannot change it.
    """
    digest = hashlib.sha256()
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in sorted(files):
            data = files[name]
            digest.update(name.encode() + b"\0" + str(len(data)).encode() + b"\0" + data)
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            archive.writestr(info, data, zipfile.ZIP_DEFLATED)
    return buffer.getvalue(), digest.hexdigest()


class BotVersion(models.Model):
    """One immutable, content-addressed version of a bot's code, with its check verdict."""

    class Status(models.TextChoices):
        PENDING = "pending"
        CHECKING = "checking"
        ACCEPTED = "accepted"
        REJECTED = "rejected"

    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    content_hash = models.CharField(max_length=64)
    #: A zip holding main.py and the bot's other files (empty for house bots).
    code = models.BinaryField(default=b"", blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    check_report = models.JSONField(default=dict, blank=True)
    #: A retired version keeps its matches but enters no new tournament or match (the API).
    retired = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    #: When its check was sent to the workers (tournaments.play.dispatch); null while it waits
    #: in the database for its owner's turn.
    check_sent_at = models.DateTimeField(null=True, blank=True)
    #: Whether a rated result of this version was applied (match_rating.rate_match sets it with
    #: the first, ratings_store.mark_rated_versions from the history): the first widens
    #: its bot (global_rating.new_version), read in one primary-key lookup at any history size.
    ever_rated = models.BooleanField(default=False, db_default=False, editable=False)
    #: When the ladder stopped seating this version because it kept faulting in rated play
    #: (tournaments.competitions.ladder_faults; null: it is not off the ladder for that).
    off_ladder_at = models.DateTimeField(null=True, blank=True)
    #: When its owner put it back on the ladder: faults of matches before count no more.
    back_on_ladder_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = (
            models.UniqueConstraint(fields=["bot", "number"], name="unique_version_number"),
            models.UniqueConstraint(fields=["bot", "content_hash"], name="unique_version_code"),
        )
        indexes = (
            models.Index(fields=["status", "id"], name="version_status_id"),
            models.Index(fields=["retired", "id"], name="version_retired_id"),
        )

    def __str__(self) -> str:
        return f"{self.bot.name} v{self.number}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if self.pk is not None and "update_fields" not in kwargs:
            stored = BotVersion.objects.filter(pk=self.pk).values("code", "content_hash").first()
            if stored and (
                bytes(stored["code"]) != bytes(self.code)
                or stored["content_hash"] != self.content_hash
            ):
                raise ValueError("a bot version's code is immutable: upload a new version")
        super().save(*args, **kwargs)


class Tournament(models.Model):
    """A set of bot versions, a format and its settings; matches are made when it starts."""

    class Format(models.TextChoices):
        ROUND_ROBIN = "round_robin"

    class Status(models.TextChoices):
        DRAFT = "draft"
        #: Started: its schedule is being worked out and written by a task (issue 42).
        SCHEDULING = "scheduling"
        RUNNING = "running"
        FINISHED = "finished"
        CANCELLED = "cancelled"

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="tournaments",
    )
    name = models.CharField(max_length=100)
    game = models.CharField(max_length=32)
    variant = models.CharField(max_length=32, blank=True, default="")
    options = models.JSONField(default=dict, blank=True)
    #: Seats at a table; 0 means the game's default.
    table_size = models.PositiveSmallIntegerField(default=0)
    format = models.CharField(max_length=16, choices=Format.choices, default=Format.ROUND_ROBIN)
    participants = models.ManyToManyField(BotVersion, related_name="tournaments", blank=True)
    #: Games in each match (each table), and how many times each pairing or table is played.
    games_per_pairing = models.PositiveIntegerField(default=2)
    rounds = models.PositiveIntegerField(default=1)
    duplicate = models.BooleanField(default=True)
    rated = models.BooleanField(default=True)
    #: Clocks for the referee (start-up, per move, bank) and sandbox limits, in seconds/MB.
    time_control = models.JSONField(default=dict, blank=True)
    limits = models.JSONField(default=dict, blank=True)
    seed = models.BigIntegerField(default=0)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.DRAFT)
    matches_total = models.PositiveIntegerField(default=0)
    matches_done = models.PositiveIntegerField(default=0)
    #: Why its last start did not go through (the schedule's task found it over a quota,
    #: or failed): it is a draft again, to be started once more.
    start_failure = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = (
            models.Index(fields=["game", "id"], name="tournament_game_id"),
            models.Index(fields=["status", "id"], name="tournament_status_id"),
            models.Index(fields=["rated", "id"], name="tournament_rated_id"),
            models.Index(fields=["name"], name="tournament_name"),  # the admin's search
        )

    def __str__(self) -> str:
        return f"{self.name} ({self.game})"

    @property
    def progress(self) -> float:
        """The share of matches finished (or given up), 0 to 1."""
        return self.matches_done / self.matches_total if self.matches_total else 0.0


class Duel(models.Model):
    """Is the owner's version B stronger than A? A sequential test (judge.duel, docs/duels.md)
    played in rounds of two unrated matches on the same deals, B and A swapped between
    symmetric seats (the panel's version in the other seats of a larger table).

    ``state`` is ``judge.duel.state.DuelState.to_json()``: the pair counts, the LLR after
    each round and the decision; tournaments.competitions.duels folds each finished round in.
    """

    class Status(models.TextChoices):
        RUNNING = "running"
        DECIDED = "decided"
        CAPPED = "capped"
        CANCELLED = "cancelled"
        FAILED = "failed"

    #: No owner: a house duel of house bots (made by management commands, the demo's),
    #: which everyone may read and only staff cancel, as a tournament with no owner.
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="duels",
    )
    game = models.CharField(max_length=32)
    variant = models.CharField(max_length=32, blank=True, default="")
    options = models.JSONField(default=dict, blank=True)
    table_size = models.PositiveSmallIntegerField(default=2)
    #: A: the baseline; B: the owner's challenger; the panel sits in the other seats.
    a = models.ForeignKey(BotVersion, on_delete=models.PROTECT, related_name="duels_as_a")
    b = models.ForeignKey(BotVersion, on_delete=models.PROTECT, related_name="duels_as_b")
    panel = models.ForeignKey(
        BotVersion, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    #: create_duel always sets it (the request's, else DUEL_PAIRS_PER_ROUND); the default
    #: is that setting's, so a duel made another way plays the same rounds.
    pairs_per_round = models.PositiveSmallIntegerField(default=25)
    seed = models.BigIntegerField(default=0)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.RUNNING)
    state = models.JSONField(default=dict)
    #: Why the duel stopped early (a match of it failed for good, a version was retired).
    failure = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = (models.Index(fields=["owner", "status"], name="duel_owner_status"),)

    def __str__(self) -> str:
        return f"duel {self.pk}: {self.b} against {self.a} ({self.game})"


class Ladder(models.Model):
    """A game's continuous ladder (tournaments.competitions.ladder): the latest accepted version of
    every active bot keeps playing rated matches until its rating is known.

    One row per game, made when the ladder first looks at the game; an operator pauses
    it here (the admin, ``manage.py ladder pause GAME``). Its matches are Match rows with
    ``ladder`` set and no tournament.
    """

    game = models.CharField(max_length=32, unique=True)
    paused = models.BooleanField(default=False)
    #: Seats at a ladder table; 0 means the game's default.
    table_size = models.PositiveSmallIntegerField(default=0)
    #: Deals in each ladder match (each played once per seat rotation when duplicate).
    deals = models.PositiveSmallIntegerField(default=1)
    duplicate = models.BooleanField(default=True)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"ladder of {self.game}{' (paused)' if self.paused else ''}"


#: A table not over yet: it holds its slot and its person (Match.Meta.constraints).
LIVE_TABLE = models.Q(table_slot__isnull=False, status__in=("queued", "running"))


class Match(models.Model):
    """One referee match at one table: who sits where, its seeds, and what happened.

    ``attempt`` counts claims; the worker holding the current attempt and an unexpired
    lease is the only one allowed to store the result.
    """

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"
        CANCELLED = "cancelled"

    #: No index of its own: (tournament, number) and (tournament, id) serve it, and with
    #: one the planner read a tournament's every match and sorted them below 50,000.
    tournament = models.ForeignKey(
        Tournament,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="matches",
        db_index=False,
    )
    #: The ladder that scheduled this match (then there is no tournament).
    ladder = models.ForeignKey(
        Ladder, null=True, blank=True, on_delete=models.PROTECT, related_name="matches"
    )
    #: The duel that scheduled this match (then there is no tournament), its round, and
    #: which of the round's two seatings it plays (0: B at seat 0, 1: B and A swapped).
    duel = models.ForeignKey(
        "Duel", null=True, blank=True, on_delete=models.CASCADE, related_name="matches"
    )
    duel_round = models.PositiveIntegerField(default=0)
    duel_seating = models.PositiveSmallIntegerField(default=0)
    #: Order within the tournament (the queue order, chosen for meaningful partial standings).
    number = models.PositiveIntegerField(default=0)
    game = models.CharField(max_length=32)
    variant = models.CharField(max_length=32, blank=True, default="")
    options = models.JSONField(default=dict, blank=True)
    games = models.PositiveIntegerField(default=1)
    duplicate = models.BooleanField(default=False)
    rated = models.BooleanField(default=True)
    seed = models.BigIntegerField(default=0)
    time_control = models.JSONField(default=dict, blank=True)
    limits = models.JSONField(default=dict, blank=True)
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.QUEUED, db_index=True
    )
    attempt = models.PositiveIntegerField(default=0)
    lease_expires_at = models.DateTimeField(null=True, blank=True, db_index=True)
    worker = models.CharField(max_length=200, blank=True, default="")
    #: {"scores": [...], "places": [...]} per seat, when done.
    result = models.JSONField(null=True, blank=True)
    #: The comparison units the ratings use (tournaments.rating.model.units): one per game, or per
    #: duplicate deal, as places per seat ("12 21 11"); written with the result.
    units = models.TextField(blank=True, default="")
    faults = models.JSONField(default=list, blank=True)
    #: Why the match failed (infrastructure), or the history of lost attempts.
    failure = models.TextField(blank=True, default="")
    #: Where the time went: {"sandbox": s, "referee": s, "database": s, ...}.
    timings = models.JSONField(default=dict, blank=True)
    #: Position in the global order in which ratings were updated (null: not rated yet).
    rating_seq = models.BigIntegerField(null=True, blank=True, db_index=True)
    enqueued_at = models.DateTimeField(null=True, blank=True)
    #: When a tournament's match was sent to the broker (tournaments.play.dispatch); null while
    #: it waits in the database for a free slot. Quick matches are sent at once.
    sent_at = models.DateTimeField(null=True, blank=True, db_index=True)
    #: Who asked for a quick match (tournament matches belong to the tournament's owner).
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="quick_matches",
    )
    #: A person's table (tournaments.play.human_match): which of the TABLE_SLOTS it holds
    #: while queued or running (null: not a table). The constraints below make one live
    #: table per slot and per person hold under concurrent requests.
    table_slot = models.PositiveSmallIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    #: A duplicate match whose rotations are played on several hosts (issue 43,
    #: SPLIT_ROTATIONS_ACROSS_HOSTS): how many parts (0 or 1: played whole), decided when its
    #: first part is claimed; the part played or to play next (its earlier parts are
    #: MatchPart rows); the attempt at which that part began (MATCH_MAX_ATTEMPTS counts each
    #: part's attempts); the host whose queue the part was sent to ("" the shared queue).
    parts = models.PositiveSmallIntegerField(default=0)
    part = models.PositiveSmallIntegerField(default=0)
    part_attempt = models.PositiveIntegerField(default=0)
    sent_to = models.CharField(max_length=200, blank=True, default="")

    class Meta:
        verbose_name_plural = "matches"
        constraints = (
            models.UniqueConstraint(
                fields=["table_slot"], condition=LIVE_TABLE, name="one_live_table_per_slot"
            ),
            models.UniqueConstraint(
                fields=["requested_by"], condition=LIVE_TABLE, name="one_live_table_per_person"
            ),
        )
        ordering = (
            "tournament_id",
            "number",
            "id",
        )
        # The API's filters (pages go by id) and a tournament's matches in queue order.
        indexes = (
            models.Index(fields=["tournament", "number"], name="match_tournament_number"),
            # The API's matches of a tournament, newest first: one range at any history
            # length (issue 47: by the tournament's own index and a sort below 50,000
            # matches, above by a walk of the whole match key, 360 ms at 500,000).
            models.Index(fields=["tournament", "id"], name="match_tournament_id"),
            models.Index(fields=["game", "id"], name="match_game_id"),
            models.Index(fields=["status", "id"], name="match_status_id"),
            models.Index(fields=["rated", "id"], name="match_rated_id"),
            # The same filters given together: each set walks its own index (a rare
            # status of one game read the game's whole history on (game, id)).
            models.Index(fields=["game", "status", "id"], name="match_game_status_id"),
            models.Index(fields=["game", "rated", "id"], name="match_game_rated_id"),
            models.Index(fields=["status", "rated", "id"], name="match_status_rated_id"),
            models.Index(
                fields=["game", "status", "rated", "id"], name="match_game_status_rated_id"
            ),
            # The lease reaper: running matches whose lease ran out.
            models.Index(
                fields=["lease_expires_at"],
                name="match_running_lease",
                condition=models.Q(status="running"),
            ),
            # The reaper's "lost messages": queued matches by when they were sent.
            models.Index(
                fields=["enqueued_at"],
                name="match_queued_enqueued",
                condition=models.Q(status="queued"),
            ),
            models.Index(fields=["started_at"], name="match_started_at"),
        )

    def __str__(self) -> str:
        return f"match {self.pk} ({self.game}, {self.status})"

    def seat_versions(self) -> list[BotVersion]:
        """The bot version in each seat, seat 0 first."""
        return [seat.version for seat in self.seats.select_related("version__bot")]


class MatchPart(models.Model):
    """One part of a match played in parts (Match.parts): a run of its seatings
    (``blocks``, judge.referee.split_blocks) played by one attempt on one host. Written by
    the attempt that held the match when the part ended (tournaments.play.lease.finish_part),
    once: the match's result is stored only with its last part. ``records`` holds the
    part's full game records, which the next part carries on (judge.referee.Carried), until
    the match is stored; ``games`` keeps each game's deal, seating and result."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="parts_played")
    index = models.PositiveSmallIntegerField()
    first_block = models.PositiveSmallIntegerField()
    end_block = models.PositiveSmallIntegerField()
    #: The host (tournaments.play.tasks.worker_host) and worker process that played it.
    host = models.CharField(max_length=200)
    worker = models.CharField(max_length=200)
    attempt = models.PositiveIntegerField()
    games = models.JSONField(default=list, blank=True)
    records = models.JSONField(default=list, blank=True)
    faults = models.JSONField(default=list, blank=True)
    #: Each bot's state when the part ended (judge.referee.Carried.bots).
    carry = models.JSONField(default=list, blank=True)
    timings = models.JSONField(default=dict, blank=True)
    finished_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = (
            models.UniqueConstraint(fields=["match", "index"], name="one_row_per_match_part"),
        )

    def __str__(self) -> str:
        return f"match {self.match_id} part {self.index} on {self.host}"


class Seat(models.Model):
    """One seat of a match: which bot version sits there, and its log (shown to its owner)."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="seats")
    index = models.PositiveSmallIntegerField()
    version = models.ForeignKey(BotVersion, on_delete=models.PROTECT, related_name="seats")
    #: The version's bot, copied so that a bot's matches are one index range (bot, match).
    bot = models.ForeignKey(Bot, on_delete=models.PROTECT, related_name="seats", db_index=False)
    log = models.TextField(blank=True, default="")
    #: Where each game's part of ``log`` starts: [[game, character offset], ...] (the
    #: referee's ``log_games``); shown, like the log, to the bot's owner only.
    log_games = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = (
            "match_id",
            "index",
        )
        constraints = (models.UniqueConstraint(fields=["match", "index"], name="unique_seat"),)
        indexes = (
            models.Index(fields=["bot", "match"], name="seat_bot_match"),
            models.Index(fields=["version", "match"], name="seat_version_match"),
        )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # Every way of making a seat (create, bulk_create, a form) passes its version:
        # the bot is copied from it here, so no caller can forget it.
        version = kwargs.get("version")
        if version is not None and "bot" not in kwargs and "bot_id" not in kwargs:
            kwargs["bot_id"] = version.bot_id
        super().__init__(*args, **kwargs)

    def __str__(self) -> str:
        return f"match {self.match_id} seat {self.index}"


class TournamentTable(models.Model):
    """A tournament's fitted table, cached: valid while ``done`` matches are finished.

    Fitting reads every unit of the tournament; the page's live part is polled every few
    seconds by every open tab, so the fit runs once per new result, not once per poll.
    """

    tournament = models.OneToOneField(Tournament, on_delete=models.CASCADE, related_name="table")
    done = models.PositiveIntegerField()
    #: Standings rows and head-to-head, as tournaments.competitions.standings writes them.
    rows = models.JSONField(default=list)
    head_to_head = models.JSONField(default=list)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"table of tournament {self.tournament_id} after {self.done} matches"


class Rating(models.Model):
    """A bot's current global rating in its game (see docs/ratings.md), and its record.

    The row is updated with each rated result (in the same transaction), so leaderboards
    and bot pages read it instead of the history: ``elo`` is the rating shown (Elo
    scale), ``deviation`` its standard deviation in Elo points (the 95% interval is
    shown from it), ``units`` the comparison units (games or duplicate deals) rated;
    ``variance``, ``information``, ``spread`` and ``decisive`` are the rest of the state
    the next update needs (tournaments.rating.model.skill.Skill). Wins, draws and losses
    count pairwise results (each opponent at a table), ``matches`` the rated matches.
    """

    bot = models.OneToOneField(Bot, on_delete=models.CASCADE, related_name="rating")
    game = models.CharField(max_length=32, db_index=True)
    elo = models.FloatField()
    deviation = models.FloatField(default=START_DEVIATION, db_default=START_DEVIATION)
    units = models.PositiveIntegerField(default=0, db_default=0)
    variance = models.FloatField(default=START_DEVIATION**2, db_default=START_DEVIATION**2)
    information = models.FloatField(default=0.0, db_default=0.0)
    spread = models.FloatField(default=0.0, db_default=0.0)
    decisive = models.FloatField(default=0.0, db_default=0.0)
    matches = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    draws = models.PositiveIntegerField(default=0)
    losses = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        indexes = (models.Index(fields=["game", "-elo", "bot"], name="rating_board"),)

    @property
    def pairs(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def provisional(self) -> bool:
        """Too few units or too wide an interval to read much into (skill.is_provisional)."""
        return is_provisional(self.units, self.deviation)

    @property
    def low(self) -> float:
        return interval(self.elo, self.deviation)[0]

    @property
    def high(self) -> float:
        return interval(self.elo, self.deviation)[1]

    def skill(self, records: Mapping[int, Record] | None = None) -> Skill:
        """The state the next update starts from, with the bot's records (by opponent
        version id: ``RatingRecord.of``)."""
        return Skill(
            self.elo,
            self.variance,
            self.information,
            self.spread,
            self.units,
            self.decisive,
            dict(records or {}),
        )

    def set_skill(self, skill: Skill) -> None:
        """Store an updated state (``deviation`` is derived from it)."""
        self.elo, self.variance, self.units = skill.elo, skill.variance, skill.units
        self.information, self.spread = skill.information, skill.spread
        self.decisive = skill.decisive
        self.deviation = skill.deviation

    def __str__(self) -> str:
        return f"{self.bot.name}: {self.elo:.0f}"


class FieldRating(models.Model):
    """A bot's place in its game's field as the last field pass found it
    (tournaments.rating.stored.field_view): the whole field refitted together, ``elo`` its rating
    there and ``deviation`` its joint deviation against the field's mean (docs/ratings.md,
    "The stored field view"). It is the one rating: pages, the API and the ladder's
    matchmaking read it where it exists (``field_view.standing``)."""

    rating = models.OneToOneField(
        Rating, on_delete=models.CASCADE, primary_key=True, related_name="field"
    )
    elo = models.FloatField()
    deviation = models.FloatField()
    #: The dispersion the pass measured for the bot (rating.model.field_dispersion), which the
    #: head-to-head's comparisons fit with; null: too few units, the stored one is used.
    dispersion = models.FloatField(null=True, blank=True)
    fitted_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"field view of rating {self.rating_id}: {self.elo:.0f}"


class FieldPass(models.Model):
    """A game's last field pass: what it saw (``bots`` rated and their ``matches``
    summed, so a pass with nothing new is skipped), when it ended and how long it took;
    ``running_since`` is the claim of a pass under way (a conditional UPDATE); ``spread``:
    how spread it found the game's field (Elo; rating.model.field_spread), which the pages'
    own comparisons count as the pass's deviations do (null: no pass yet); ``bias_scale``
    and ``posterior_scale``: what its fit's bias reduction scaled Firth's pseudo-results by
    (``field.Field.scales``), so that a page fitting on the spot fits as the pass did (null:
    the pass's fit reduced no bias); ``sandwich``: the share of the penalty-fixed noise its
    deviations weighed in (``field.Field.sandwich``; null: none)."""

    game = models.CharField(max_length=32, unique=True)
    bots = models.PositiveIntegerField(default=0)
    matches = models.PositiveBigIntegerField(default=0)
    ran_at = models.DateTimeField(null=True, blank=True)
    seconds = models.FloatField(default=0.0)
    running_since = models.DateTimeField(null=True, blank=True)
    spread = models.FloatField(null=True, blank=True)
    bias_scale = models.FloatField(null=True, blank=True)
    posterior_scale = models.FloatField(null=True, blank=True)
    sandwich = models.FloatField(null=True, blank=True)

    class Meta:
        verbose_name_plural = "field passes"  # the admin's list, not "field passs"

    def __str__(self) -> str:
        return f"field pass of {self.game} at {self.ran_at}"


class RatingRecord(models.Model):
    """A bot's pairwise results against one opponent version in the global rating
    (tournaments.rating.model.results.Record): ``results`` and ``score`` (fewer once the bot's
    own new version comes), and ``seen``, the opponent's rating when they last met. Written with
    each rated result; every rating is fitted to its bot's records. Kept per opponent
    version, so results against an earlier version stay read at its last rating."""

    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="rating_records")
    opponent = models.ForeignKey(BotVersion, on_delete=models.CASCADE, related_name="+")
    results = models.FloatField()
    score = models.FloatField()
    seen = models.FloatField()

    class Meta:
        constraints = (
            models.UniqueConstraint(fields=("bot", "opponent"), name="rating_record_pair"),
        )

    @classmethod
    def of(cls, bot_ids: Collection[int]) -> dict[int, dict[int, Record]]:
        """The records of these bots, by bot id and opponent version id."""
        found: dict[int, dict[int, Record]] = {pk: {} for pk in bot_ids}
        rows = cls.objects.filter(bot_id__in=bot_ids).values_list(
            "bot_id", "opponent_id", *Record._fields
        )
        for bot_id, opponent_id, *fields in rows:
            found[bot_id][opponent_id] = Record(*fields)
        return found

    def __str__(self) -> str:
        return f"{self.bot_id} against {self.opponent_id}: {self.score:g} of {self.results:g}"


class RatingHistory(models.Model):
    """One rating change: which match moved which bot from what to what."""

    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="rating_history")
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="rating_changes")
    game = models.CharField(max_length=32)
    #: The bot's n-th rated match (1, 2, ...): charts pick evenly spaced samples by it.
    seq = models.PositiveIntegerField(default=0)
    before = models.FloatField()
    after = models.FloatField()
    #: The rating's deviation after this match (the bot page's chart draws its interval as
    #: a band); null in rows written before it was kept, and in recomputed histories.
    deviation = models.FloatField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name_plural = "rating history"
        ordering = ("id",)
        constraints = (
            models.UniqueConstraint(fields=["bot", "match"], name="unique_rating_change"),
        )
        indexes = (models.Index(fields=["bot", "seq"], name="rating_history_bot_seq"),)

    def __str__(self) -> str:
        return f"{self.bot.name}: {self.before:.0f} -> {self.after:.0f}"


class RateCounter(models.Model):
    """Requests of one client against one limit in its current window (tournaments.guard.limits);
    the window starts at the client's first request and lasts the rate's period.

    Counted in the database with one atomic upsert, so every web process and host shares
    the count and concurrent requests can never both take the last slot.
    """

    key = models.CharField(max_length=200, primary_key=True)
    count = models.PositiveIntegerField(default=0)
    #: When the window ends (seconds since the epoch).
    expires_at = models.FloatField(db_index=True)

    def __str__(self) -> str:
        return f"{self.key}: {self.count}"


class Replay(models.Model):
    """Where a finished match's record is kept: a gzip file in the replay storage.

    The record is read only by the replay views, so it lives outside the match row
    (tournaments.play.replay_store writes, reads and removes the files).
    """

    match = models.OneToOneField(
        Match, on_delete=models.CASCADE, primary_key=True, related_name="replay"
    )
    #: The file's name in the replay storage (REPLAY_STORAGE).
    name = models.CharField(max_length=255)
    #: Gzipped bytes, games in the record and seats at the table (the frames files).
    size = models.PositiveIntegerField(default=0)
    games = models.PositiveIntegerField(default=0)
    players = models.PositiveSmallIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"replay of match {self.match_id}"


class Worker(models.Model):
    """A live Celery worker as it announces itself (tournaments.play.tasks, every
    WORKER_HEARTBEAT_SECONDS): how many processes it plays with. The dispatcher's capacity
    is the sum over the workers seen lately (tournaments.play.dispatch.capacity)."""

    name = models.CharField(max_length=200, unique=True)
    processes = models.PositiveIntegerField()
    #: The languages whose bots it can run (tournaments.play.runner.runnable_languages).
    languages = models.JSONField(default=list, blank=True)
    #: The host whose kernel its bots share (tournaments.play.tasks.worker_host), when it
    #: takes parts of matches played on several hosts from that host's queue ("": none).
    host = models.CharField(max_length=200, blank=True, default="")
    started_at = models.DateTimeField(default=timezone.now)
    seen_at = models.DateTimeField(default=timezone.now, db_index=True)

    def __str__(self) -> str:
        return f"{self.name} ({self.processes} processes)"


class NameSkeleton(models.Model):
    """What a user name, or a bot name in its game, looks like (tournaments.bots.names.skeleton):
    a new name whose look is held here passes for the name holding it, and is refused
    (tournaments.bots.lookalikes), in one lookup of this unique index."""

    class Kind(models.TextChoices):
        USER = "user"
        BOT = "bot"

    kind = models.CharField(max_length=4, choices=Kind.choices)
    #: The skeleton; a bot's is prefixed by its game ("GAME:a11ceb0t").
    look = models.CharField(max_length=400)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    bot = models.ForeignKey(Bot, null=True, blank=True, on_delete=models.CASCADE, related_name="+")

    class Meta:
        constraints = (models.UniqueConstraint(fields=["kind", "look"], name="unique_name_look"),)

    def __str__(self) -> str:
        return f"{self.kind} {self.look}"


class AccountAddress(models.Model):
    """A network an account registered, signed in or acted from (tournaments.guard.addresses):
    its address cut to the network one person holds (an IPv4 /24, an IPv6 /64). Accounts
    that share a network are one person to the scheduler (tournaments.play.shares), so
    several accounts of one person get one person's share of the workers."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="addresses"
    )
    network = models.CharField(max_length=64)
    first_seen = models.DateTimeField(default=timezone.now)
    last_seen = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = (
            models.UniqueConstraint(fields=["user", "network"], name="unique_account_network"),
        )
        indexes = (models.Index(fields=["network", "last_seen"], name="address_network_seen"),)

    def __str__(self) -> str:
        return f"{self.user_id} from {self.network}"


class FairPlayFlag(models.Model):
    """What a fair-play audit found against a version (tournaments.fairplay): a version
    that scores better in a deal's later rotations than in its first (``rotation``), or a
    pair whose results together deviate from their ratings (``collusion``, ``partner``
    the other version), beyond chance at the audit's threshold. Staff read the evidence
    (the statistic, its p-value and threshold, the deals and matches it rests on) and
    dismiss the flag or void the version's results (tournaments.fairplay.voiding).

    One row per (kind, version, partner): each audit run refreshes its evidence;
    ``current`` says whether the last run still found it beyond the threshold."""

    class Kind(models.TextChoices):
        ROTATION = "rotation"
        COLLUSION = "collusion"

    class Status(models.TextChoices):
        OPEN = "open"
        DISMISSED = "dismissed"
        VOIDED = "voided"

    kind = models.CharField(max_length=16, choices=Kind.choices)
    game = models.CharField(max_length=32)
    version = models.ForeignKey(BotVersion, on_delete=models.PROTECT, related_name="flags")
    partner = models.ForeignKey(
        BotVersion, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.OPEN)
    current = models.BooleanField(default=True)
    #: The test's statistic (a t or z value), its one-sided p-value and the threshold
    #: it passed (Holm's, over the versions or pairs the run tested).
    statistic = models.FloatField()
    p_value = models.FloatField()
    threshold = models.FloatField()
    #: The size of the effect in the game's points a deal, and what it rests on.
    effect = models.FloatField()
    deals = models.PositiveIntegerField(default=0)
    matches = models.PositiveIntegerField(default=0)
    #: The rest of the evidence (the audit's finding as JSON: counts, the matches where
    #: the effect showed most) and, once voided, the matches taken out of the ratings.
    evidence = models.JSONField(default=dict, blank=True)
    #: What staff decided and why (who, when: the admin's log).
    note = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ("-id",)
        indexes = (models.Index(fields=["status", "id"], name="flag_status_id"),)

    def __str__(self) -> str:
        partner = f" with {self.partner_id}" if self.partner_id else ""
        return f"{self.kind} flag of version {self.version_id}{partner} ({self.status})"
