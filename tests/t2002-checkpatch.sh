#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Both series pass their project's style checker: the kernel's
# checkpatch.pl --strict and QEMU's checkpatch.pl (make checkpatch); and
# every patch opens as git format-patch writes one, From the project
# (one line: a From whose address folds onto the next line is two).
. "$(dirname "$0")/lib.sh"
# header PATCH: the first four lines of a format-patch mail, ours
header() {
	awk 'NR == 1 && $0 != "From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001" { print "line 1: " $0; bad = 1 }
		NR == 2 && $0 != "From: splitlock-bench developers <devel@splitlock-bench.invalid>" { print "line 2: " $0; bad = 1 }
		NR == 3 && !/^Date: / { print "line 3: " $0; bad = 1 }
		NR == 4 && !/^Subject: \[PATCH( [0-9]+\/[0-9]+)?\] / { print "line 4: " $0; bad = 1 }
		NR == 4 { exit bad }
		END { if (NR < 4) { print "only " NR " lines"; exit 1 } }' "$1"
}
for p in "$T_ROOT"/patch/linux/*.patch "$T_ROOT"/patch/qemu/*.patch; do
	t_ok "format-patch header: ${p#"$T_ROOT"/}" header "$p"
done
if ! t_prereq guest; then
	t_skip "checkpatch" "no kernel and QEMU trees (make kernel qemu)"
	exit 0
fi
"$T_ROOT/scripts/checkpatch.sh" >"$T_TMP/cp.out" 2>&1
rc=$?
t_ok "make checkpatch passes" sh -c "[ $rc = 0 ] || { cat '$T_TMP/cp.out'; exit 1; }"
for p in $(. "$T_ROOT/scripts/lib.sh" && . "$T_ROOT/scripts/lib-build.sh" && series_files "$T_ROOT/patch/linux" && series_files "$T_ROOT/patch/qemu"); do
	t_ok "checkpatch: ${p#"$T_ROOT"/}" grep -qxF "ok   ${p#"$T_ROOT"/}" "$T_TMP/cp.out"
done
# The checker must be able to fail: a patch with a style error is caught.
sed 's/^+\tif (sld_state == sld_off)$/+\tif (sld_state == sld_off) {  /' \
	"$T_ROOT"/patch/linux/0004-*.patch >"$T_TMP/bad.patch"
kdir=$("$T_ROOT/scripts/build-kernel.sh" --path)/src
bad() { ! (cd "$kdir" && perl scripts/checkpatch.pl --strict --quiet "$T_TMP/bad.patch" >/dev/null 2>&1); }
t_ok "a patch with trailing whitespace and a stray brace is rejected" bad
