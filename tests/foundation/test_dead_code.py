"""No function, method, class or import that nothing uses (vulture), outside the tests.

Unused variables and attributes are not reported: dataclass fields, model Meta options and values
read by templates are used by name where vulture cannot see it. Uses from the tests and benchmarks
count, so a helper the tests rely on is not reported. Framework hooks are listed, each with its
reason, in dead_code_whitelist.py.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent.parent
WHITELIST = Path(__file__).with_name("dead_code_whitelist.py")
SCANNED = ["admin_panel", "memory_core", "provider_schemas", "tests", "bench", "manage.py"]
# Views are used by urls.py, commands by name, template tags by {% load %}: these say so.
FRAMEWORK_DECORATORS = "@register.*,@receiver,@*_required,@require_*,@api_endpoint,@vary_on_headers,@property"
REPORTED = re.compile(r"unused (function|method|class|property|import)")
MIN_CONFIDENCE = "60"


def unused(*extra: Path) -> list[str]:
    result = subprocess.run(
        [sys.executable, "-m", "vulture", *SCANNED, str(WHITELIST), *map(str, extra),
         "--min-confidence", MIN_CONFIDENCE, "--ignore-decorators", FRAMEWORK_DECORATORS,
         "--exclude", "*/migrations/*,*/fixtures/*"],
        cwd=REPO, capture_output=True, text=True, timeout=300,
    )
    assert result.returncode in (0, 3), result.stderr  # 3: vulture found something
    return [
        line for line in result.stdout.splitlines()
        if REPORTED.search(line) and not line.startswith(("tests/", "bench/"))
    ]


def test_it_finds_no_unused_code_in_the_packages():
    assert unused() == []


def test_it_reports_a_function_nothing_calls(tmp_path):
    module = tmp_path / "added_helper.py"
    module.write_text(
        "def used() -> int:\n    return 1\n\n\ndef forgotten() -> int:\n    return used()\n",
        encoding="utf-8",
    )

    reported = unused(module)

    assert len(reported) == 1 and "unused function 'forgotten'" in reported[0]
