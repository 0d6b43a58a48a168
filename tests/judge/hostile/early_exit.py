"""Ready, then exits quietly (status 0) when asked for its first move."""

import sys

print('{"type":"ready"}', flush=True)
sys.stdin.readline()
sys.stdin.readline()
sys.exit(0)
