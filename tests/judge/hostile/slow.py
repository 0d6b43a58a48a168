"""Ready at once, then takes far too long over its first move."""

import time

import botkit


def choose(observation, legal):
    time.sleep(30)
    return 0


botkit.run(choose)
