#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Style-check both patch series: the kernel's scripts/checkpatch.pl --strict
# on patch/linux, QEMU's scripts/checkpatch.pl on patch/qemu, each from the
# cached source tree (make kernel / make qemu first). Fails on any finding.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
. "$SLB_ROOT/scripts/lib-build.sh"
kdir=$("$SLB_ROOT/scripts/build-kernel.sh" --path)/src
qdir=$(dirname "$(dirname "$("$SLB_ROOT/scripts/build-qemu.sh" --path)")")/src
[ -x "$kdir/scripts/checkpatch.pl" ] || die "no kernel tree at $kdir: run 'make kernel'"
[ -x "$qdir/scripts/checkpatch.pl" ] || die "no QEMU tree at $qdir: run 'make qemu'"
rc=0
for p in $(series_files "$SLB_ROOT/patch/linux"); do
	out=$(cd "$kdir" && perl scripts/checkpatch.pl --strict --quiet "$p" 2>&1) || rc=1
	if [ -n "$out" ]; then printf '%s:\n%s\n' "${p#"$SLB_ROOT"/}" "$out"; rc=1; else echo "ok   ${p#"$SLB_ROOT"/}"; fi
done
for p in $(series_files "$SLB_ROOT/patch/qemu"); do
	out=$(cd "$qdir" && perl scripts/checkpatch.pl --no-tree "$p" 2>&1) || { printf '%s:\n%s\n' "${p#"$SLB_ROOT"/}" "$out"; rc=1; continue; }
	echo "ok   ${p#"$SLB_ROOT"/}"
done
exit $rc
