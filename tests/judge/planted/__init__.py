"""Games with one planted rule bug each, that the conformance suite has never seen.

tests/judge/test_conformance_catches.py registers them (``JUDGE_GAME_PLUGINS``, as a game
from outside the repository would be) and runs tests/judge/test_conformance.py against
them: each must fail with the message that names its bug, and only with that one. Each is
a small variant of an existing game, otherwise correct, so the test that catches it is the
one written for that kind of bug. Each package (``oceans``, ``highcard``) borrows the house
bots, words and rules pages of the game it varies:

- ``laxoceans``: Oceans 11 whose ``why_illegal`` forgot that conceding is refused when the
  opponent needs one more win (its ``legal_actions`` knows); caught by
  ``test_every_action_outside_the_legal_list_is_refused_with_a_reason``.
- ``turnless``: High Card whose ``why_illegal`` checks the word but not whose turn it is;
  caught by the same test (and the positions' out-of-turn check).
- ``stakes``: High Card with a ``stake`` option the scoring never reads; caught by
  ``test_every_option_changes_what_the_seats_see_or_the_outcome``.
- ``endless``: High Card whose last round deals another instead of ending the game; caught
  by every test that plays a game, each capped (before the cap, a match test hung).
"""
