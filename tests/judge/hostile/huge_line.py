"""Ready, then answers its first move with one line far over the size cap."""

import sys

print('{"type":"ready"}', flush=True)
sys.stdin.readline()
sys.stdin.readline()
sys.stdout.write('{"type":"action","action":"' + "1" * (4 << 20) + '"}\n')
sys.stdout.flush()
sys.stdin.read()
