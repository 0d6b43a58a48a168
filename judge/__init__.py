"""The judge: authoritative card-game engines, the bot protocol and the referee.

This package imports nothing but the standard library (only ``judge.cli`` and
``judge.sandbox_bridge`` may wire in ``sandbox``), so a bot author can run the exact
server referee on a laptop.
"""

__version__ = "0.1.0"
