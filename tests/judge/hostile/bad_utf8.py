"""Ready, then answers with bytes that are not UTF-8."""

import sys

print('{"type":"ready"}', flush=True)
sys.stdin.readline()
sys.stdin.readline()
sys.stdout.buffer.write(b'{"type":"action","action":"\xff\xfe"}\n')
sys.stdout.flush()
sys.stdin.read()
