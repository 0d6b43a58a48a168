"""A well-behaved bot: plays the first legal action and logs what it saw to stderr."""

import sys

import botkit


class Polite:
    def __init__(self) -> None:
        self.games = 0

    def act(self, observation, legal, message):
        return 0

    def game_over(self, message):
        self.games += 1

    def match_over(self, message):
        print(
            f"match_over after {self.games} games, place {message['places'][message['bot']]}",
            file=sys.stderr,
        )


botkit.run(Polite())
