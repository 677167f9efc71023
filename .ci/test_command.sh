#!/usr/bin/env bash
# Prints README.md's test command: the first line of the fenced block after <!-- test-command -->,
# so that CI, the stability bench and the README cannot drift apart.
set -euo pipefail
readme="${1:-$(dirname "$0")/../README.md}"
awk '/<!-- test-command -->/{found=1; next} found && /^```/{if (inblock) exit; inblock=1; next} inblock{print; exit}' "$readme"
