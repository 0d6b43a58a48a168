"""The judge's command line: ``python -m judge COMMAND ...``.

Each command lives in its own module with ``add_parser(subparsers)``, which registers
the command and sets ``func`` to a function taking the parsed arguments and returning
the exit status. This package is the one place in judge/ allowed to wire in sandbox/.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from importlib import import_module

#: Modules of judge.cli that define a command, in the order ``--help`` lists them.
COMMANDS: list[str] = ["play", "duel", "replay", "hand"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m judge", description="The card-game judge: engines, referee, tools."
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        import_module(f"judge.cli.{name}").add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    status: int = args.func(args)
    return status
