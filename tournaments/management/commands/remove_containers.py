"""``manage.py remove_containers [--all]``: remove bot containers that nobody will close.

Without ``--all``: containers of worker processes of this host that no longer run, and
any past its wall clock (workers do this themselves when they start). With ``--all``: every
bot container of this deployment (its labels begin with its JUDGE_INSTANCE), for a host
whose workers are all stopped; another deployment's on the same engine are left alone.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from tournaments.play.instance import judge_instance


class Command(BaseCommand):
    help = "Remove leftover bot containers (of dead workers, or --all) and their pipe folders."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--all",
            action="store_true",
            help="every bot container of this deployment (stop its workers first)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        try:  # the Docker SDK is needed only here, and only on hosts with an engine
            docker_backend = import_module("sandbox.docker_backend")
            before = len(docker_backend.bot_containers())
            if options["all"]:
                mine = f"{judge_instance()}-"
                removed = docker_backend.remove_leftovers(everything=True, label_prefix=mine)
            else:
                removed = docker_backend.remove_leftovers()
        except ImportError as error:
            raise CommandError(f"the Docker SDK is not installed: {error}") from None
        except RuntimeError as error:  # SandboxError: no engine answering
            raise CommandError(str(error)) from None
        self.stdout.write(
            f"removed {removed} of {before} bot containers; {before - removed} still in use"
        )
