"""``python -m tooldesign``: the command line, as the ``tooldesign`` script runs it."""

import sys

from tooldesign.cli import main

sys.exit(main())
