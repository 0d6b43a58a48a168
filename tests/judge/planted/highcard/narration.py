"""High Card's words, for the planted variants."""

from tests.judge.highcard.narration import events, outcome

__all__ = ["events", "outcome"]
