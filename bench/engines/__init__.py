"""Engine and referee speed, and the house bots' strength (judge/)."""
