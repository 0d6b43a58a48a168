"""Oceans 11, "stubborn": never concedes; deals whenever it is asked.

Asked only when its row is the weaker one, it always hopes the next card turns the hand.
"""

import botkit


def choose(observation, legal):
    return "deal" if "deal" in legal else legal[0]


botkit.run(choose)
