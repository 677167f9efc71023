"""A move of every profile that stops after N profiles, says so, and waits to be killed.

``python -m tests.pausing_move HOME TO N`` moves the secrets of every profile of HOME to TO through
the real Secret Service (``DBUS_SESSION_BUS_ADDRESS`` from the environment). After the N-th profile
is committed it prints ``paused after N`` and blocks on stdin, so a test can SIGKILL it at exactly
that point (no timing involved).
"""

from __future__ import annotations

import sys
from pathlib import Path

from provider_schemas.saving import secret_moves


def main(argv: list[str]) -> int:
    home, to, after = Path(argv[0]), argv[1], int(argv[2])
    real_commit = secret_moves._commit_plan
    committed = 0

    def commit_then_pause(plan, done) -> None:
        nonlocal committed
        real_commit(plan, done)
        if not plan.empty:
            committed += 1
            if committed == after:
                print(f"paused after {committed}", flush=True)
                sys.stdin.readline()  # the test kills us here

    secret_moves._commit_plan = commit_then_pause
    secret_moves.move_secrets_of_homes(homes=secret_moves.every_profile_home(home), to=to)
    print("finished", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
