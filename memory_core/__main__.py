"""``python -m memory_core ...``: the memory command without Django (see memory_core.cli)."""

from __future__ import annotations

import sys

from memory_core.cli import main

if __name__ == "__main__":  # importing the module (e.g. to walk the package) must not run it
    sys.exit(main())
