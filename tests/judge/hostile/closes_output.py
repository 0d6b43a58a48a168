"""Ready, then closes its standard output but keeps running."""

import os
import sys

print('{"type":"ready"}', flush=True)
sys.stdin.readline()
os.close(1)
sys.stdin.read()
