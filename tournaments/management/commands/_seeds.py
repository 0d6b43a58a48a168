"""The seed bots: every house bot of each game and its example bots (judge.games.seed_files).

Loading is idempotent: a bot is found by owner, game and name, and a version by the hash
of its code, so loading twice adds nothing, and a changed example file becomes a new
version of the same bot. The examples belong to the user ``seeds`` (who cannot sign in);
they are project code, so they are stored as accepted without the upload check.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from django.contrib.auth.models import User

from judge.bots import policies
from judge.games import GAMES, seed_files
from tournaments.bots import bot_actions
from tournaments.models import Bot, BotVersion, bundle_code

SEEDS_USER = "seeds"


@dataclass(frozen=True)
class Loaded:
    """One seed bot's current version, and whether this load stored it."""

    version: BotVersion
    new: bool


def seed_owner() -> User:
    user, made = User.objects.get_or_create(username=SEEDS_USER)
    if made:
        user.set_unusable_password()
        user.save(update_fields=["password"])
    return user


def example_files(game: str) -> list[Path]:
    """The example bots of ``game``, by name: what the game's registry entry lists."""
    return list(seed_files(game).values())


def load_house(game: str) -> list[Loaded]:
    loaded = []
    for policy in sorted(policies(game)):
        mine = BotVersion.objects.filter(bot__owner=None, bot__game=game)
        known = mine.filter(bot__name=f"house:{policy}").exists()
        loaded.append(Loaded(bot_actions.house_version(game, policy), not known))
    return loaded


def load_examples(game: str) -> list[Loaded]:
    owner = seed_owner()
    loaded = []
    for path in example_files(game):
        bot = Bot.objects.filter(owner=owner, game=game, name=path.stem).first()
        if bot is None:
            bot = bot_actions.create_bot(owner, game, path.stem)
        code, digest = bundle_code({"main.py": path.read_bytes()})
        known = bot.versions.filter(content_hash=digest).exists()
        version = bot_actions.add_version(bot, code, digest, BotVersion.Status.ACCEPTED)
        loaded.append(Loaded(version, not known))
    return loaded


def load(games: list[str] | None = None) -> dict[str, list[Loaded]]:
    """Every seed bot of ``games`` (default: all), house bots first."""
    return {game: load_house(game) + load_examples(game) for game in games or list(GAMES)}


def current_versions(game: str) -> list[BotVersion]:
    """The seed bots of ``game`` as they are now (loading them first): the demo's entrants."""
    return [item.version for item in load([game])[game]]
