#!/bin/bash
# Install the Debian packages in checks/packages.txt that are missing.
# Names every package it could not install and stops; installs nothing twice.
set -euo pipefail
. "$(dirname "$0")/config.sh"

want=()
while read -r pkg _; do
	case "$pkg" in ''|'#'*) continue ;; esac
	want+=("$pkg")
done < "${VSWAP_PACKAGES:-$TOP/checks/packages.txt}"

missing=()
for pkg in "${want[@]}"; do
	if [ "$pkg" = "$KSRC_PKG" ]; then
		have=$(dpkg-query -W -f='${Status} ${Version}' "$pkg" 2>/dev/null || true)
		[ "$have" = "install ok installed $KSRC_VERSION" ] && continue
		missing+=("$pkg=$KSRC_VERSION")
	else
		dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' && continue
		missing+=("$pkg")
	fi
done

[ ${#missing[@]} -eq 0 ] && exit 0

sudo=
if [ "$(id -u)" != 0 ]; then
	command -v sudo >/dev/null || die "missing packages: ${missing[*]} (run as root or install sudo)"
	sudo=sudo
fi
msg "installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
mkdir -p "$BUILD"
mkdir -p "$BUILD"
$sudo apt-get update -q >/dev/null || true
if ! $sudo apt-get install -y -q --no-install-recommends "${missing[@]}" >"$BUILD/apt.log" 2>&1; then
	tail -5 "$BUILD/apt.log" >&2
	still=()
	for p in "${missing[@]}"; do
		dpkg-query -W -f='${Status}' "${p%%=*}" 2>/dev/null | grep -q 'install ok installed' || still+=("$p")
	done
	die "could not install: ${still[*]} (log: $BUILD/apt.log)"
fi
rm -f "$BUILD/apt.log"
