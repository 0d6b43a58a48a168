"""Ready, then floods its standard output (and error) with lines that never stop."""

import sys

print('{"type":"ready"}', flush=True)
sys.stdin.readline()
sys.stdin.readline()
junk = "spam " * 200 + "\n"
while True:
    sys.stdout.write(junk)
    sys.stderr.write(junk)
