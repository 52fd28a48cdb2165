"""`python3 -m bmharness ...`: the baremetric command line (harness/baremetric runs this)."""

import sys

from .cli import main

sys.exit(main())
