"""Ready, then answers a move with text that is not JSON."""

import sys

print('{"type":"ready"}', flush=True)
sys.stdin.readline()  # hello
sys.stdin.readline()  # the first act
print("I fold, obviously", flush=True)
sys.stdin.read()
