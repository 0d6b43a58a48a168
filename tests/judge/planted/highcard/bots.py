"""High Card's house bots, for the planted variants."""

from tests.judge.highcard.bots import POLICIES

__all__ = ["POLICIES"]
