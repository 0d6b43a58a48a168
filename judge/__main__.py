"""``python -m judge``: the judge's command line (see judge.cli)."""

import sys

from judge.cli import main

sys.exit(main())
