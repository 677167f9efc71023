#!/usr/bin/env python
"""memory-panel's command-line entry point (Django's manage.py)."""

from __future__ import annotations

import gc
import os
import sys


def main() -> None:
    if sys.argv[1:2] == ["serve"]:
        # The start makes some 130,000 objects that live as long as the process and almost no
        # garbage; the collector's repeated passes over them were a tenth of the start's CPU.
        # `serve` turns it back on once warm, with those objects frozen out of later passes
        # (docs/performance.md, "The start, second pass").
        gc.disable()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "admin_panel.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
