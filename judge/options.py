"""Game options with declared bounds: the one place that says what a game accepts.

Each game declares its options as a tuple of ``Option`` (a whole number between bounds, a
yes/no, or one of a few words). ``Game.checked_settings`` checks a request against them
(players, variant and every option) and is the only validator: the engine, the service,
the API and the web forms all call it, so ``deals = 1000000000`` is refused everywhere
with the same message. The bounds keep one game to a size a worker can play in minutes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

JSON = Any


class OptionError(ValueError):
    """A value outside its option's declared type or bounds; the message says which."""


class OptionKind(StrEnum):
    """What kind of value an option takes."""

    INT = "int"
    BOOL = "bool"
    CHOICE = "choice"


@dataclass(frozen=True)
class Option:
    """One option: its name, kind, default, and bounds (int) or choices (choice)."""

    name: str
    kind: OptionKind
    default: JSON
    help: str = ""
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[str, ...] = field(default=())

    def check(self, value: JSON) -> JSON:
        """``value`` if it fits the option, else OptionError naming the option and bounds."""
        if self.kind is OptionKind.BOOL:
            if type(value) is not bool:
                raise OptionError(f"option {self.name!r} must be true or false, not {value!r}")
            return value
        if self.kind is OptionKind.CHOICE:
            if not isinstance(value, str) or value not in self.choices:
                raise OptionError(
                    f"option {self.name!r} must be one of {list(self.choices)}, not {value!r}"
                )
            return value
        if type(value) is not int or not self._low() <= value <= self._high():
            raise OptionError(
                f"option {self.name!r} must be a whole number from {self._low()} to "
                f"{self._high()}, not {_shown(value)}"
            )
        return value

    def _low(self) -> int:
        return 0 if self.minimum is None else self.minimum

    def _high(self) -> int:
        return self._low() if self.maximum is None else self.maximum

    def to_json(self) -> dict[str, JSON]:
        """The option as the API shows it (``/api/games/``'s ``option_schema``)."""
        shown: dict[str, JSON] = {
            "name": self.name,
            "kind": str(self.kind),
            "default": self.default,
            "help": self.help,
        }
        if self.kind is OptionKind.INT:
            shown.update(minimum=self._low(), maximum=self._high())
        if self.kind is OptionKind.CHOICE:
            shown["choices"] = list(self.choices)
        return shown


def int_option(name: str, default: int, minimum: int, maximum: int, help: str = "") -> Option:
    """A whole-number option from ``minimum`` to ``maximum`` (both included)."""
    return Option(name, OptionKind.INT, default, help, minimum, maximum)


def bool_option(name: str, default: bool, help: str = "") -> Option:
    return Option(name, OptionKind.BOOL, default, help)


def choice_option(name: str, default: str, choices: tuple[str, ...], help: str = "") -> Option:
    return Option(name, OptionKind.CHOICE, default, help, choices=choices)


def checked_options(
    game: str, schema: tuple[Option, ...], options: Mapping[str, JSON]
) -> dict[str, JSON]:
    """Every option of ``schema`` with its default, overridden by the checked ``options``.

    Unknown names are refused (a typo must not silently play the default).
    """
    if not isinstance(options, Mapping):
        raise OptionError(f"{game} options must be an object of name: value, not {options!r}")
    known = {option.name: option for option in schema}
    unknown = sorted(str(name) for name in set(options) - set(known))
    if unknown:
        raise OptionError(
            f"{game} has no option {unknown[0]!r}; its options: {sorted(known) or 'none'}"
        )
    checked = {name: option.default for name, option in known.items()}
    for name, value in options.items():
        try:
            checked[name] = known[name].check(value)
        except OptionError as error:
            raise OptionError(f"{game} {error}") from None
    return checked


def _shown(value: JSON) -> str:
    """A value as an error message shows it: a long one cut short."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
