"""What the keyring check and a move of secrets cost against a real Secret Service.

    .venv/bin/python bench/secret_store.py [--rounds 30] [--secrets 8]

Starts a private D-Bus bus with gnome-keyring-daemon (as the tests do; never your own keyring),
then prints, median and p95 wall time:

1. the keyring check (``check_keyring``: lock state, set/get/delete of a probe entry), which runs
   on every Settings page view and before every switch, save with keyring changes and move;
2. a move of ``--secrets`` secrets from ``.env`` to the keyring and back (one round = both ways).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def _figures(label: str, samples: list[float]) -> None:
    ordered = sorted(samples)
    p95 = ordered[max(0, round(0.95 * len(ordered)) - 1)]
    print(f"{label}: median {statistics.median(ordered) * 1000:.1f} ms, p95 {p95 * 1000:.1f} ms (n={len(ordered)})")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--secrets", type=int, default=8)
    args = parser.parse_args()

    from tests.secret_service import SecretServiceSession, missing_tools

    if missing_tools():
        print(f"needs {', '.join(missing_tools())}", file=sys.stderr)
        return 1
    service = SecretServiceSession()
    service.start()
    try:
        os.environ.update(service.environment())
        import keyring
        from keyring.backends import SecretService

        keyring.set_keyring(SecretService.Keyring())
        from provider_schemas.reading.secret_values import declared_secret_variables
        from provider_schemas.saving.secret_moves import move_secrets
        from provider_schemas.secret_stores.probe import check_keyring

        with tempfile.TemporaryDirectory() as tmp:
            home = Path(tmp)
            checks = []
            for _ in range(args.rounds):
                start = time.perf_counter()
                assert check_keyring(home=home).usable
                checks.append(time.perf_counter() - start)
            _figures("keyring check", checks)

            names = declared_secret_variables(home=home)[: args.secrets]
            (home / ".env").write_text("# bench\nOTHER=1\n" + "".join(f"{n}=value-{n}\n" for n in names))
            moves = []
            for _ in range(args.rounds):
                start = time.perf_counter()
                move_secrets(home=home, to="keyring")
                move_secrets(home=home, to="env_file")
                moves.append(time.perf_counter() - start)
            _figures(f"move of {len(names)} secrets to the keyring and back", moves)
    finally:
        service.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
