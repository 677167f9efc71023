"""No garbage collection while a process loads its modules (docs/performance.md, "Where a fresh
process spends its time").

Loading Django, its apps and the URL conf creates a few hundred thousand objects that live as
long as the process, and the collector scans them again and again while they are made (a full
collection in the middle of the URL conf alone). Paused, the start costs about 50 ms less CPU.
Each pause is paired with a resume that always runs: the settings' pause with the app's
``ready()`` (the end of ``django.setup()``), the URL conf's with the end of its own module body
(``try``/``finally``). Nothing else changes: reference counting frees objects as before, and
the collector is back on before any request is answered.
"""

from __future__ import annotations

import gc

_paused_by_us = False


def pause_collection() -> None:
    """Turn the collector off, unless it is off already (then whoever did so turns it back on)."""
    global _paused_by_us
    if gc.isenabled():
        gc.disable()
        _paused_by_us = True


def resume_collection() -> None:
    """Turn the collector back on if ``pause_collection`` turned it off."""
    global _paused_by_us
    if _paused_by_us:
        _paused_by_us = False
        gc.enable()
