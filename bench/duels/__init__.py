"""The duel's sequential test and its estimate against their theory, by simulation."""
