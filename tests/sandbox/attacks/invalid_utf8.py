"""Answers with bytes that are not UTF-8."""

import os
import sys

sys.stdin.readline()
os.write(1, b'\xff\xfe{"type": "ready"}\xc0\n')
sys.stdin.readline()
