"""Answers every move with an action no game allows."""

import botkit

botkit.run(lambda observation, legal: "take the whole pile")
