#!/bin/bash
# make lint: shellcheck -x on every shell script of the repository (checks/,
# qemu-test/, .ci/run, the guest's /init).  One record per script: lint/PATH.
set -uo pipefail
. "$(dirname "$0")/config.sh"

command -v shellcheck >/dev/null || die "shellcheck is not installed (make deps)"
cd "$TOP" || exit 1
mkdir -p "$RESULTS"
mapfile -t scripts < <({ git ls-files -co --exclude-standard -- '*.sh'; echo .ci/run; echo qemu-test/init; } | sort -u)
for f in "${scripts[@]}"; do
	[ -f "$f" ] || continue
	shell='bash'
	if head -n 1 "$f" | grep -q busybox; then shell='sh'; fi
	case $f in checks/lib.sh) shell=bash ;; esac
	if out=$(shellcheck -x -s "$shell" -P SCRIPTDIR:checks "$f" 2>&1); then
		good "lint/$f"
	else
		printf '%s\n' "$out" >"$RESULTS/lint-${f//\//_}.log"
		bad "lint/$f" "$(grep -m 2 -E '^In |SC[0-9]+' <<<"$out" | tr '\n' ' ')(log: $RESULTS/lint-${f//\//_}.log)"
	fi
done
exit "$fail"
