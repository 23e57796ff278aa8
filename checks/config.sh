# Shared settings for every script in checks/ and qemu-test/.  Sourced, not run.
# The variables are used by the scripts that source this file.
# shellcheck shell=bash disable=SC2034
# Everything that makes the kernel tree and its hashes reproducible lives here.

# Debian's tools first: checkpatch's spdxcheck.py and b4 need Debian's
# python3 modules (python3-ply), not a pyenv or venv python3 earlier on PATH.
export PATH=/usr/bin:/bin:$PATH

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# The Debian package the baseline is taken from.  Pinned: another version is
# another baseline, with other hashes.  Bump both lines together.
KSRC_PKG=linux-source-6.12
KSRC_VERSION=6.12.118-1~deb12u1
KSRC_TARBALL=/usr/src/linux-source-6.12.tar.xz
# git refs cannot contain '~'; the tag spells the package version with '_'.
BASE_TAG=debian/6.12.118-1_deb12u1
# Hash of the baseline commit every machine must produce (checked by tests).
BASE_COMMIT=ee88de6b83b78b044f4174c2854734062dc62f41

# Identity and date used for the baseline commit and as committer of the
# series when it is applied: fixed, so the hashes never depend on the machine.
IDENT_NAME="Seed 2748fca4 maintainers"
IDENT_EMAIL="maintainers@users.noreply.a-seed-2748fca4.example"
BASE_DATE="2025-01-01T00:00:00+0000"

SERIES_BRANCH=${VSWAP_SERIES_BRANCH:-vswap}
SERIES_NAME=vswap

BUILD=${VSWAP_BUILD:-$TOP/build}
KTREE=${VSWAP_KTREE:-$BUILD/linux}
OUT=$BUILD/out
RESULTS=${VSWAP_RESULTS:-$BUILD/results}
EXPORT_DIR=${VSWAP_EXPORT_DIR:-$TOP/branch-export}

# Run git without any user or system configuration, as the fixed identity:
# every deterministic operation (baseline, git am, format-patch) goes through it.
kgit() {
	GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null \
	GIT_AUTHOR_NAME="$IDENT_NAME" GIT_AUTHOR_EMAIL="$IDENT_EMAIL" \
	GIT_COMMITTER_NAME="$IDENT_NAME" GIT_COMMITTER_EMAIL="$IDENT_EMAIL" \
		git -C "$KTREE" "$@"
}

# The shared shell functions (records, worktrees, checkpatch exceptions,
# scenario files, progress): one implementation each, in checks/lib.sh.
# shellcheck source=checks/lib.sh
. "$TOP/checks/lib.sh"
