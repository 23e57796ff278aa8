#!/bin/bash
# Print every result recorded in build/results/results.txt and the final
# "N passed, N failed" line.  Exit status 1 if anything failed or nothing ran.
set -uo pipefail
. "$(dirname "$0")/config.sh"

f=$RESULTS/results.txt
# --clear: forget earlier results (make check, lint, ... start afresh).
if [ "${1:-}" = --clear ]; then rm -f "$f"; exit 0; fi
[ -f "$f" ] || { echo "0 passed, 1 failed (no results recorded)"; exit 1; }
passed=$(grep -c '^PASS ' "$f")
failed=$(grep -c '^FAIL ' "$f")
if [ "$failed" -gt 0 ]; then
	echo "Failures:"
	grep '^FAIL ' "$f" | sed 's/^/  /'
fi
if [ "$passed" -eq 0 ] && [ "$failed" -eq 0 ]; then
	echo "0 passed, 1 failed (no results recorded)"
	exit 1
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
