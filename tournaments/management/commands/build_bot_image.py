"""``manage.py build_bot_image``: build the bot runtime image (scripts/build-bot-image).

The script does the work (a Debian base by debootstrap when there is no registry, then
sandbox/images/python/Dockerfile with networking off) and skips what is up to date; this
command runs it from the checkout and says where its log is.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

SCRIPT = Path(settings.BASE_DIR) / "scripts" / "build-bot-image"


class Command(BaseCommand):
    help = "Build the bot runtime image (cardjudge/runtime-python) offline; skipped if up to date."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--image", help="the image to build (default: JUDGE_BOT_IMAGE)")
        parser.add_argument("--base", help="the base image (default: the imported Debian one)")

    def handle(self, *args: Any, **options: Any) -> None:
        if not SCRIPT.is_file():
            raise CommandError(f"{SCRIPT} is missing: run this from a checkout of the project")
        env = dict(os.environ)
        image = options["image"] or os.environ.get("JUDGE_BOT_IMAGE")
        if image:
            env["BOT_IMAGE"] = image
        if options["base"]:
            env["BOT_BASE_IMAGE"] = options["base"]
        self.stderr.write(f"building the bot image (logs in {Path(settings.BASE_DIR) / 'var'})")
        done = subprocess.run([str(SCRIPT)], env=env, cwd=settings.BASE_DIR, check=False)
        if done.returncode != 0:
            raise CommandError(f"{SCRIPT.name} failed with status {done.returncode}")
        self.stdout.write(
            f"the bot image {image or 'cardjudge/runtime-python:latest'} is up to date"
        )
