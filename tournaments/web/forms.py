"""Forms of the web pages: sign-up, bot upload, tournament creation; errors in plain words."""

from __future__ import annotations

import json
from typing import Any, ClassVar, cast

from django import forms
from django.contrib.auth.forms import UserCreationForm, UsernameField
from django.contrib.auth.models import User

from judge import games
from judge.bots import policies
from judge.games import game_class
from sandbox.runtimes import RUNTIMES
from tournaments.api.serializers import MAX_PARTICIPANTS
from tournaments.bots import lookalikes, names
from tournaments.bots.uploads import accepted_files
from tournaments.errors import ServiceError
from tournaments.game_settings import checked_settings
from tournaments.guard import boundedjson
from tournaments.models import Bot, BotVersion


class SignupForm(UserCreationForm):  # type: ignore[type-arg,unused-ignore]
    class Meta:
        model = User
        fields = ("username",)
        field_classes: ClassVar[dict[str, type[forms.Field]]] = {"username": UsernameField}

    def clean_username(self) -> str:
        name = checked(self.cleaned_data["username"], names.USER_NAME_PUNCTUATION, 150)
        twin = lookalikes.user_like(name)
        if twin is not None:
            raise forms.ValidationError(look_alike_user(name, twin))
        return name


def code_help() -> str:
    """The upload field's help: every language the server offers, and the file it takes."""
    languages = ", ".join(runtime.title for runtime in RUNTIMES.values())
    return f"Languages: {languages}. Upload {accepted_files()}."


def look_alike_user(name: str, twin: str) -> str:
    return f"{name!r} looks like the user name {twin!r}; choose a name that looks different"


def checked(value: str, punctuation: str = names.BOT_NAME_PUNCTUATION, size: int = 64) -> str:
    """The name in its stored form (tournaments.bots.names), or the rule it breaks."""
    try:
        return names.checked_name(value, punctuation, size)
    except names.NameRuleError as error:
        raise forms.ValidationError(str(error)) from None


class UploadForm(forms.Form):
    """A new bot (game and name) or, for an existing bot, just the file of a new version."""

    game = forms.ChoiceField(choices=games.choices)
    name = forms.CharField(max_length=200, help_text="Letters and digits of one script, - _ .")
    code = forms.FileField(label="Bot code", help_text=code_help())

    def __init__(self, *args: Any, bot: Bot | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.bot = bot
        if bot is not None:
            del self.fields["game"]
            del self.fields["name"]

    def clean_name(self) -> str:
        return checked(self.cleaned_data["name"])


UNRATED = "Other clocks than the standard 1 s a move, 10 s bank, 10 s start-up: unrated."


class TournamentForm(forms.Form):
    """A round robin of one game: its settings, its entrants and its clocks."""

    name = forms.CharField(max_length=100)
    variant = forms.ChoiceField()
    table_size = forms.TypedChoiceField(coerce=int, label="Players at a table")
    participants = forms.MultipleChoiceField(widget=forms.CheckboxSelectMultiple)
    # The same bounds as the API's (TournamentSerializer).
    games_per_pairing = forms.IntegerField(min_value=1, max_value=20, initial=2)
    rounds = forms.IntegerField(min_value=1, max_value=10, initial=1)
    duplicate = forms.BooleanField(
        required=False, initial=True, help_text="Replay each deal with the bots rotated."
    )
    # Clocks other than the standard ones (tournaments.play.clocks) make the tournament unrated:
    # nobody lowers another's rating by entering it with hostile clocks.
    move_s = forms.FloatField(
        min_value=0.05, max_value=5, initial=1.0, label="Seconds a move", help_text=UNRATED
    )
    bank_s = forms.FloatField(min_value=0, max_value=60, initial=10.0, label="Time bank (s)")
    startup_s = forms.FloatField(min_value=1, max_value=20, initial=10.0, label="Start-up (s)")
    options = forms.CharField(
        required=False,
        label="Game options (JSON)",
        help_text="An object of option: value; the options and their bounds are listed below.",
    )

    def __init__(self, *args: Any, game: str, versions: list[BotVersion], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.game = game
        engine = game_class(game)
        cast(forms.ChoiceField, self.fields["variant"]).choices = [
            (v, engine.title_of(v)) for v in engine.variants
        ]
        sizes = range(engine.min_players, engine.max_players + 1)
        table_size = cast(forms.ChoiceField, self.fields["table_size"])
        table_size.choices = [(n, str(n)) for n in sizes]
        table_size.initial = engine.default_players
        self.participant_groups = participant_choices(game, versions)
        cast(forms.ChoiceField, self.fields["participants"]).choices = self.participant_groups

    def offered_participants(self) -> set[str]:
        """The values of every participant the form offers (bots and house bots)."""
        groups = cast(list[tuple[str, list[tuple[str, str]]]], self.participant_groups)
        return {value for _, group in groups for value, _ in group}

    def clean_participants(self) -> list[str]:
        """At most MAX_PARTICIPANTS, as through the API: the table, its head-to-head and
        its fit grow with the square of the entrants, and every page view reads them."""
        chosen: list[str] = self.cleaned_data["participants"]
        if len(chosen) > MAX_PARTICIPANTS:
            raise forms.ValidationError(
                f"{len(chosen)} entrants; a tournament takes at most {MAX_PARTICIPANTS}"
            )
        return chosen

    def clean_options(self) -> dict[str, Any]:
        text = self.cleaned_data["options"].strip()
        if not text:
            return {}
        try:
            options = boundedjson.loads(text)
        except boundedjson.TooDeep as error:
            raise forms.ValidationError(str(error)) from None
        except json.JSONDecodeError as error:
            raise forms.ValidationError(f"not JSON ({error.msg} at column {error.colno})") from None
        if not isinstance(options, dict):
            raise forms.ValidationError('write an object, like {"hands": 2}')
        return options

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if "variant" in data and "options" in data and "table_size" in data:
            try:
                checked_settings(self.game, data["table_size"], data["variant"], data["options"])
            except ServiceError as error:
                self.add_error("options", str(error))
        chosen = data.get("participants") or []
        size = data.get("table_size")
        if size and chosen and len(chosen) < size:
            self.add_error("participants", f"a table of {size} needs at least {size} participants")
        return data


def participant_choices(game: str, versions: list[BotVersion]) -> list[tuple[str, Any]]:
    """Grouped choices: uploaded bots (their latest accepted version), then house bots."""
    uploaded = [
        (f"v{v.pk}", f"{v.bot.name} v{v.number} ({v.bot.owner.username if v.bot.owner else '-'})")
        for v in versions
    ]
    house = [(f"house:{name}", f"house: {name}") for name in sorted(policies(game))]
    return [("Uploaded bots", uploaded), ("House bots", house)]
