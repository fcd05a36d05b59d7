"""``python -m bench.e2e [--quick]``: see ``bench.e2e.runner``."""

import sys

from bench.e2e.runner import main

if __name__ == "__main__":  # the churn's spawned workers import this module too
    sys.exit(main())
