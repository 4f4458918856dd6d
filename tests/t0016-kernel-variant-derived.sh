#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The kernel variants are built from a copy of the main kernel's object
# tree (scripts/build-kernel.sh): kbuild recompiles only what differs,
# where a build of its own compiled every file again (from the compiler
# cache, which for defwarn preprocessed every file: 4 min the first time).
# Each builds from a hard-linked copy of the main kernel's sources, nofix
# (one patch less) with that patch taken out, defwarn (one Kconfig choice)
# as they are. Checked on the cached builds of this tree: each variant says
# it was derived, compiled a handful of objects (a full build: about 1000),
# names no path of the main kernel's tree; defwarn has the configuration
# the full path makes (tinyconfig + the fragments + olddefconfig, made here
# from the same sources); nofix's sources lack the patch and the main
# kernel's keep it. A variant built in full on purpose (SLB_KERNEL_FULL=1,
# marked .full) is skipped. Byte for byte, derived and full (SLB_KERNEL_FULL=1) builds of each
# gave the same .config, vmlinux and bzImage (2026-12-05); t3001 and t4001
# boot them.
. "$(dirname "$0")/lib.sh"
K=$T_ROOT/scripts/build-kernel.sh
main=$("$K" --path) var=$("$K" --variant defwarn --path) nofix=$("$K" --variant nofix --path)
[ -f "$main/.done" ] && [ -f "$var/.done" ] && [ -f "$nofix/.done" ] ||
	{ t_skip "derived kernel variants" "the kernel and its variants are not built (make kernel-defwarn kernel-nofix)"; exit 0; }
cc_count() { grep -c '^  CC ' "$1/build.log"; }
few() { n=$(cc_count "$1"); [ "$n" -le 20 ] || { echo "$n objects compiled (the main kernel: $(cc_count "$main"))"; return 1; }; }
for v in defwarn nofix; do
	d=$("$K" --variant "$v" --path)
	if [ -f "$d/.full" ]; then
		t_skip "$v derived from the main kernel's objects" "built in full on purpose (SLB_KERNEL_FULL=1)"
		continue
	fi
	t_ok "$v was derived from the main kernel's objects" grep -q "deriving the $v variant from the main kernel's objects" "$d/build.log"
	t_ok "... not built in full after a failed derivation" sh -c "! grep 'could not derive' '$d/build.log'"
	t_ok "$v compiled a handful of objects, not the whole kernel" few "$d"
	t_ok "no text file of $v's object tree names the main kernel's tree" sh -c "! grep -rlIF '$main/' '$d/build' | head -3 | grep ."
	t_ok "$v's sources are hard links to the main kernel's" test "$(stat -c %i "$d/src/Makefile")" = "$(stat -c %i "$main/src/Makefile")"
done
drop=$(ls "$T_ROOT"/patch/linux/0007-*.patch)
t_ok "the file 0007 changes is nofix's own, not a hard link to the main kernel's" sh -c "[ \$(stat -c %i '$nofix/src/arch/x86/kernel/cpu/intel.c') != \$(stat -c %i '$main/src/arch/x86/kernel/cpu/intel.c') ]"
t_ok "nofix's sources lack patch 0007 (it would apply)" patch -d "$nofix/src" -p1 --dry-run --forward --batch --quiet -i "$drop"
t_ok "... and the main kernel's still have it (taking it out of the copy left them)" patch -d "$main/src" -p1 --dry-run --reverse --batch --quiet -i "$drop"

# The configuration a full build makes, from the same sources.
full_config() {
	local o=$T_TMP/o
	mkdir -p "$o"
	make -s -C "$main/src" O="$o" ARCH=x86_64 tinyconfig >/dev/null 2>&1 &&
		(cd "$o" && "$main/src/scripts/kconfig/merge_config.sh" -m .config "$T_ROOT"/rt-config/*.config \
			"$T_ROOT/rt-config/variants/defwarn.config") >/dev/null 2>&1 &&
		make -s -C "$main/src" O="$o" ARCH=x86_64 olddefconfig >/dev/null 2>&1 &&
		cmp "$o/.config" "$var/build/.config"
}
t_ok "defwarn's .config is the one the full configuration gives" full_config
t_ok "... and sets the default mode warn" grep -qx 'CONFIG_X86_SPLIT_LOCK_DETECT_DEFAULT_WARN=y' "$var/build/.config"
