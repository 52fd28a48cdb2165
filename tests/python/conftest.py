"""pytest setup: make the harness package (harness/bmharness) and the test helpers importable."""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
for path in (os.path.join(REPO, "harness"), HERE):
    if path not in sys.path:
        sys.path.insert(0, path)
