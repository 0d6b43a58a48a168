"""Serializers only translate: rows to JSON and requests to checked values.

Private fields (code, check reports, logs) appear only through the owner-only serializers
or fields the views fill for the owner; public ones never hold them.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError as DjangoValidationError
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from judge.games import GAMES
from tournaments.api.permissions import may_read_seat_log, owns_version
from tournaments.bots import lookalikes, names
from tournaments.competitions import ladder_faults
from tournaments.guard.queryparams import MAX_KEY
from tournaments.models import Bot, BotVersion, Match, Rating, RatingHistory, Seat, Tournament
from tournaments.play.lease import public_notes
from tournaments.rating.stored import field_view

#: Entrants of one tournament (a round robin of 2 seats plays n(n-1)/2 matches a round).
MAX_PARTICIPANTS = 64


def name_or_400(value: str, punctuation: str = names.BOT_NAME_PUNCTUATION, size: int = 64) -> str:
    """The name in its stored form (tournaments.bots.names), or the rule it breaks as a 400."""
    try:
        return names.checked_name(value, punctuation, size)
    except names.NameRuleError as error:
        raise serializers.ValidationError(str(error)) from None


class GameField(serializers.ChoiceField):
    """A game of the registry, read when a request is validated, so that a game registered
    after start-up (a test's toy game) is accepted too."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(choices=list(GAMES), **kwargs)

    def to_internal_value(self, data: Any) -> Any:
        self.choices = list(GAMES)
        return super().to_internal_value(data)


class UserSerializer(serializers.ModelSerializer[User]):
    class Meta:
        model = User
        fields: tuple[str, ...] = ("id", "username", "is_staff")
        read_only_fields: tuple[str, ...] = fields


class RegisterSerializer(serializers.ModelSerializer[User]):
    password = serializers.CharField(write_only=True, style={"input_type": "password"})
    token = serializers.CharField(read_only=True)

    class Meta:
        model = User
        fields: tuple[str, ...] = ("id", "username", "email", "password", "token")
        read_only_fields: tuple[str, ...] = ("id", "token")

    def validate_username(self, value: str) -> str:
        name = name_or_400(value, names.USER_NAME_PUNCTUATION, 150)
        twin = lookalikes.user_like(name)
        if twin is not None:
            raise serializers.ValidationError(
                f"{name!r} looks like the user name {twin!r}; choose a name that looks different"
            )
        return name

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        """The password rules (settings' AUTH_PASSWORD_VALIDATORS), which also compare it
        with the user name and e-mail."""
        user = User(username=attrs.get("username", ""), email=attrs.get("email", ""))
        try:
            validate_password(attrs["password"], user)
        except DjangoValidationError as error:
            raise serializers.ValidationError({"password": list(error.messages)}) from None
        return attrs


class ShownRatingSerializer(serializers.Serializer[field_view.Standing]):
    """The one rating (docs/ratings.md, "One rating"): the figure the leaderboard, the bot
    page and the ladder's matchmaking read, the leaderboard ordered by it. The whole
    field's joint fit as of its last pass where the bot has one (``joint``), else, for a
    bot no pass has seen yet, its stored own rating (``own``)."""

    elo = serializers.FloatField()
    deviation = serializers.FloatField(help_text="joint: against the field's mean")
    low = serializers.FloatField(help_text="95% interval, lower end")
    high = serializers.FloatField(help_text="95% interval, upper end")
    provisional = serializers.BooleanField()
    joint = serializers.BooleanField(help_text="the field view's (else the stored rating's)")
    own = serializers.BooleanField(
        help_text="no field pass has seen the bot yet: its stored own rating until the next"
    )
    as_of = serializers.DateTimeField(
        allow_null=True,
        help_text="the field pass's time: results rated since count at the next pass",
    )


class RatingSerializer(serializers.ModelSerializer[Rating]):
    """A bot's global rating (docs/ratings.md): ``elo`` on Elo's scale, ``deviation`` its
    standard deviation, ``low``/``high`` its 95% interval (within 0-3000), ``units`` the
    games or duplicate deals rated, ``provisional`` while too few or too wide: the stored
    own state, moved by every rated result, which the next field pass starts from.
    ``standing``: the one rating, the figure the pages show and the ladder reads (the
    field view's, with its joint interval, where there is one)."""

    low = serializers.FloatField(read_only=True, help_text="95% interval, lower end")
    high = serializers.FloatField(read_only=True, help_text="95% interval, upper end")
    provisional = serializers.BooleanField(
        read_only=True, help_text="fewer than 10 units, or a deviation above 100 Elo"
    )
    standing = serializers.SerializerMethodField()

    class Meta:
        model = Rating
        fields: tuple[str, ...] = (
            "elo",
            "deviation",
            "low",
            "high",
            "units",
            "provisional",
            "matches",
            "updated_at",
            "standing",
        )
        read_only_fields: tuple[str, ...] = fields

    @extend_schema_field(ShownRatingSerializer)
    def get_standing(self, rating: Rating) -> dict[str, Any]:
        return dict(ShownRatingSerializer(field_view.standing(rating)).data)


class BotSerializer(serializers.ModelSerializer[Bot]):
    owner: serializers.SlugRelatedField[User] = serializers.SlugRelatedField(
        slug_field="username", read_only=True, allow_null=True
    )
    game = GameField()
    name = serializers.CharField(max_length=200)
    rating = serializers.SerializerMethodField()
    versions = serializers.IntegerField(source="version_count", read_only=True)
    latest_version = serializers.IntegerField(read_only=True, allow_null=True)

    class Meta:
        model = Bot
        fields: tuple[str, ...] = (
            "id",
            "name",
            "game",
            "owner",
            "house_policy",
            "retired",
            "created_at",
            "versions",
            "latest_version",
            "rating",
        )
        read_only_fields: tuple[str, ...] = ("id", "owner", "house_policy", "retired", "created_at")

    def validate_name(self, value: str) -> str:
        return name_or_400(value)

    @extend_schema_field(RatingSerializer(allow_null=True))
    def get_rating(self, bot: Bot) -> dict[str, Any] | None:
        try:
            rating = bot.rating
        except Rating.DoesNotExist:
            return None
        return dict(RatingSerializer(rating).data)


class VersionSerializer(serializers.ModelSerializer[BotVersion]):
    """What anyone may read about a version: its number, hash and check status."""

    bot_name = serializers.CharField(source="bot.name", read_only=True)
    game = serializers.CharField(source="bot.game", read_only=True)
    owner = serializers.CharField(source="bot.owner.username", read_only=True, allow_null=True)

    class Meta:
        model = BotVersion
        fields: tuple[str, ...] = (
            "id",
            "bot",
            "bot_name",
            "game",
            "owner",
            "number",
            "content_hash",
            "status",
            "retired",
            "created_at",
        )
        read_only_fields: tuple[str, ...] = fields


class VersionDetailSerializer(VersionSerializer):
    """A version's detail: the check report (verdict, reasons, the bot's log during the
    check) is filled for the bot's owner only, and null for anyone else."""

    check_report = serializers.SerializerMethodField()

    ladder_faults = serializers.SerializerMethodField(
        help_text="For the owner only (null for anyone else): the version's faults in its last "
        "rated matches (faulted, of), the last one (match, fault) and off_ladder_at, when "
        "the ladder took it off for them (docs/ladder.md)."
    )

    class Meta(VersionSerializer.Meta):
        fields = (*VersionSerializer.Meta.fields, "check_report", "ladder_faults")
        read_only_fields: tuple[str, ...] = fields

    @extend_schema_field(serializers.JSONField(allow_null=True))
    def get_check_report(self, version: BotVersion) -> Any:
        request = self.context.get("request")
        if request is None or not owns_version(request.user, version):
            return None
        return version.check_report

    @extend_schema_field(serializers.JSONField(allow_null=True))
    def get_ladder_faults(self, version: BotVersion) -> Any:
        request = self.context.get("request")
        if request is None or not owns_version(request.user, version):
            return None
        record = ladder_faults.recent_faults(version)
        return {
            "faulted": record.faulted,
            "of": record.of,
            "match": record.match_id,
            "fault": record.last,
            "off_ladder_at": version.off_ladder_at,
        }


class UploadSerializer(serializers.Serializer[Any]):
    file = serializers.FileField(
        help_text="One .py file (it becomes main.py) or a .zip with main.py at its top."
    )


class TournamentSerializer(serializers.ModelSerializer[Tournament]):
    owner: serializers.SlugRelatedField[User] = serializers.SlugRelatedField(
        slug_field="username", read_only=True, allow_null=True
    )
    game = GameField()
    participants = serializers.PrimaryKeyRelatedField(
        many=True, queryset=BotVersion.objects.select_related("bot").defer("code")
    )
    games_per_pairing = serializers.IntegerField(min_value=1, max_value=20, default=2)
    rounds = serializers.IntegerField(min_value=1, max_value=10, default=1)
    table_size = serializers.IntegerField(min_value=0, max_value=8, default=0)
    seed = serializers.SerializerMethodField(
        help_text="drawn at random when the tournament is made, and shown once it is finished "
        "(never while a match of it can still be played, so not when cancelled: it may be "
        "resumed): anyone who knew it could work out every hidden card of its matches"
    )
    progress = serializers.FloatField(read_only=True)

    @extend_schema_field(serializers.IntegerField(allow_null=True))
    def get_seed(self, tournament: Tournament) -> int | None:
        return tournament.seed if tournament.status == Tournament.Status.FINISHED else None

    def validate_participants(self, value: list[BotVersion]) -> list[BotVersion]:
        if len(value) > MAX_PARTICIPANTS:
            raise serializers.ValidationError(
                f"{len(value)} entrants; a tournament takes at most {MAX_PARTICIPANTS}"
            )
        return value

    class Meta:
        model = Tournament
        fields: tuple[str, ...] = (
            "id",
            "name",
            "game",
            "variant",
            "options",
            "table_size",
            "format",
            "participants",
            "games_per_pairing",
            "rounds",
            "duplicate",
            "rated",
            "seed",
            "time_control",
            "status",
            "matches_total",
            "matches_done",
            "progress",
            "start_failure",
            "owner",
            "created_at",
            "started_at",
            "finished_at",
        )
        read_only_fields: tuple[str, ...] = (
            "id",
            "start_failure",
            "format",
            "time_control",
            "status",
            "matches_total",
            "matches_done",
            "owner",
            "created_at",
            "started_at",
            "finished_at",
        )


class StandingSerializer(serializers.Serializer[Any]):
    version = serializers.IntegerField()
    bot = serializers.IntegerField()
    bot_name = serializers.CharField()
    number = serializers.IntegerField()
    place = serializers.IntegerField()
    points = serializers.FloatField()
    pairs = serializers.IntegerField()
    matches = serializers.IntegerField()
    elo = serializers.FloatField()
    elo_low = serializers.FloatField()
    elo_high = serializers.FloatField()
    units = serializers.IntegerField(help_text="games or duplicate deals the Elo is fitted to")
    provisional = serializers.BooleanField(help_text="fewer than 10 units: a rough interval")


class StandingsSerializer(serializers.Serializer[Any]):
    tournament = serializers.IntegerField()
    status = serializers.CharField()
    matches_done = serializers.IntegerField()
    matches_total = serializers.IntegerField()
    rows = StandingSerializer(many=True)


class PairSerializer(serializers.Serializer[Any]):
    version = serializers.IntegerField()
    opponent = serializers.IntegerField()
    points = serializers.FloatField()
    pairs = serializers.IntegerField()


class HeadToHeadSerializer(serializers.Serializer[Any]):
    tournament = serializers.IntegerField()
    pairs = PairSerializer(many=True)


class SeatSerializer(serializers.ModelSerializer[Seat]):
    bot = serializers.IntegerField(source="version.bot_id", read_only=True)
    bot_name = serializers.CharField(source="version.bot.name", read_only=True)
    number = serializers.IntegerField(source="version.number", read_only=True)
    owner = serializers.CharField(
        source="version.bot.owner.username", read_only=True, allow_null=True
    )

    class Meta:
        model = Seat
        fields: tuple[str, ...] = ("index", "version", "bot", "bot_name", "number", "owner")
        read_only_fields: tuple[str, ...] = fields


class SeatWithLogSerializer(SeatSerializer):
    """A seat in a match's detail: its log only for the bot's owner (null for anyone else)."""

    log = serializers.SerializerMethodField()

    class Meta(SeatSerializer.Meta):
        fields = (*SeatSerializer.Meta.fields, "log")
        read_only_fields: tuple[str, ...] = fields

    def get_log(self, seat: Seat) -> str | None:
        request = self.context.get("request")
        if request is None or not may_read_seat_log(request.user, seat):
            return None
        return seat.log


class MatchSerializer(serializers.ModelSerializer[Match]):
    """A match; its result appears only once it is over (nothing hidden leaks meanwhile)."""

    seats = SeatSerializer(many=True, read_only=True)
    result = serializers.SerializerMethodField()

    class Meta:
        model = Match
        fields: tuple[str, ...] = (
            "id",
            "tournament",
            "number",
            "game",
            "variant",
            "games",
            "duplicate",
            "rated",
            "status",
            "seats",
            "result",
            "enqueued_at",
            "started_at",
            "finished_at",
        )
        read_only_fields: tuple[str, ...] = fields

    @extend_schema_field(serializers.JSONField(allow_null=True))
    def get_result(self, match: Match) -> Any:
        return match.result if match.status == Match.Status.DONE else None


class MatchDetailSerializer(MatchSerializer):
    seats = SeatWithLogSerializer(many=True, read_only=True)
    faults = serializers.SerializerMethodField()
    notes = serializers.SerializerMethodField()

    class Meta(MatchSerializer.Meta):
        fields = (*MatchSerializer.Meta.fields, "faults", "timings", "notes")
        read_only_fields: tuple[str, ...] = fields

    @extend_schema_field(serializers.ListField(child=serializers.CharField()))
    def get_notes(self, match: Match) -> list[str]:
        """Why an attempt did not count, as the match's page says it (voided for a host
        fault and played again, cancelled, ...): never the lines that name workers."""
        return public_notes(match.failure)

    @extend_schema_field(serializers.ListField(child=serializers.DictField()))
    def get_faults(self, match: Match) -> list[Any]:
        return list(match.faults) if match.status == Match.Status.DONE else []


class QuickMatchSerializer(serializers.Serializer[Any]):
    version = serializers.IntegerField(
        min_value=1, max_value=MAX_KEY, help_text="your bot version (any status)"
    )
    opponents = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=MAX_KEY),
        default=list,
        max_length=7,
        help_text="accepted bot versions of the same game",
    )
    house_bots = serializers.ListField(
        child=serializers.CharField(max_length=64),
        default=list,
        max_length=7,
        help_text="house bots by name, such as random or greedy",
    )
    games = serializers.IntegerField(min_value=1, max_value=10, default=1)
    seed = serializers.IntegerField(min_value=0, max_value=2**62, required=False)


class LeaderboardRowSerializer(RatingSerializer):
    bot_name = serializers.CharField(source="bot.name", read_only=True)
    owner = serializers.CharField(source="bot.owner.username", read_only=True, allow_null=True)
    retired = serializers.BooleanField(source="bot.retired", read_only=True)

    class Meta:
        model = Rating
        fields: tuple[str, ...] = (
            "bot",
            "bot_name",
            "owner",
            "retired",
            "game",
            "elo",
            "deviation",
            "low",
            "high",
            "units",
            "provisional",
            "matches",
            "wins",
            "draws",
            "losses",
            "updated_at",
            "standing",
        )
        read_only_fields: tuple[str, ...] = fields


class OptionSchemaSerializer(serializers.Serializer[Any]):
    """One game option and its declared bounds (judge.options)."""

    name = serializers.CharField()
    kind = serializers.ChoiceField(choices=["int", "bool", "choice"])
    default = serializers.JSONField()
    help = serializers.CharField()
    minimum = serializers.IntegerField(required=False)
    maximum = serializers.IntegerField(required=False)
    choices = serializers.ListField(child=serializers.CharField(), required=False)


class RatingChangeSerializer(serializers.ModelSerializer[RatingHistory]):
    """One rated match of a bot: its number among the bot's rated matches, Elo before/after."""

    class Meta:
        model = RatingHistory
        fields: tuple[str, ...] = ("seq", "match", "before", "after", "created_at")
        read_only_fields: tuple[str, ...] = fields


class GameSerializer(serializers.Serializer[Any]):
    name = serializers.CharField()
    title = serializers.CharField()
    min_players = serializers.IntegerField()
    max_players = serializers.IntegerField()
    default_players = serializers.IntegerField()
    variants = serializers.ListField(child=serializers.CharField())
    variant_titles = serializers.DictField(child=serializers.CharField())
    options = serializers.DictField()
    option_schema = OptionSchemaSerializer(many=True)
    house_bots = serializers.ListField(child=serializers.CharField())
