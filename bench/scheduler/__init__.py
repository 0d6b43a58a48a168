"""The scheduler's fairness: whose work runs next under a flood, shares, tables."""
