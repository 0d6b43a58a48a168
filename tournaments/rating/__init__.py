"""Ratings: one data model of results, and the estimates read from it (docs/architecture.md).

``model/`` is plain Python (no database), the bottom of the service: the results
(``results``: placings, pairwise results, a bot's record per opponent) and the estimates
that are views of them, on one Elo scale: the tournament fit (``tournament_fit``), the
global rating's state and its match-by-match update (``skill``, ``global_rating``) and the
field view (``field``, ``field_deviations``, ``field_dispersion``). ``stored/`` reads and
writes their rows: a rated match applied (``match_rating``), the history replayed
(``history``, ``game_processes``) and every rating recomputed (``recompute``), the field
pass (``field_store``, ``field_view``).
"""
