"""Where the real hermes-agent 0.19.0 and its readback tool are (a scratch interpreter run as a
child process, never imported): tests comparing with the agent skip where they are missing."""

from __future__ import annotations

import os
from pathlib import Path

AGENT_PYTHON = Path(os.environ.get("HERMES_0190_PYTHON", "/tmp/hermes-0190/bin/python"))
READBACK = Path(os.environ.get("HERMES_READBACK", "/work/shared/tools/readback.py"))
READBACK_MISSING = not (AGENT_PYTHON.exists() and READBACK.exists())
