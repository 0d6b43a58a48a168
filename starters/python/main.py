"""A starter bot in Python: plays a random legal action (any game).

Reads one JSON message a line from standard input, answers "hello" with "ready" and
every "act" with the index of a legal action; logs go to standard error. numpy and
scipy are installed in the sandbox: this bot draws its choices with numpy.
"""

import json
import sys

import numpy as np


def main() -> None:
    rng = np.random.default_rng()
    for line in sys.stdin:
        message = json.loads(line)
        kind = message["type"]
        if kind == "hello":
            print(f"playing {message['game']} as bot {message['bot']}", file=sys.stderr)
            answer = {"type": "ready"}
        elif kind == "act":
            answer = {"type": "action", "action": int(rng.integers(len(message["legal"])))}
        elif kind == "match_over":
            return
        else:
            continue
        print(json.dumps(answer), flush=True)


main()
