"""The ratings' calibration and cost: intervals, following a new version, the field pass."""
