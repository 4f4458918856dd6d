#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# scripts/build-initramfs.sh gives the same bytes from the same inputs: two
# builds into two empty caches, a second apart, are identical. Guest timing
# depends on the image's bytes (the kernel unpacks it), so an image whose
# cpio carried the build's file times gave other histograms for the same
# seed after a rebuild (87 of 91 in a cold make bench, 2026-12-05).
. "$(dirname "$0")/lib.sh"
# An option or a typo is no EXTRA_DIR: no image is made of it.
t_ok "build-initramfs.sh --path: exit 2, naming what is allowed, no image made" \
	sh -c "SLB_CACHE='$T_TMP/bad' '$T_ROOT/scripts/build-initramfs.sh' --path 2>'$T_TMP/bad.err'; [ \$? = 2 ] &&
		grep -q \"EXTRA_DIR '--path' is not a directory (allowed: \" '$T_TMP/bad.err' && ! ls '$T_TMP'/bad/initramfs-* 2>/dev/null"
[ -d "$GUESTBIN" ] && [ -d "$T_ROOT/build/modules" ] || { t_skip "initramfs reproducible" "guest programs not built (make initramfs)"; exit 0; }
build() { SLB_CACHE=$T_TMP/$1 "$T_ROOT/scripts/build-initramfs.sh" "$GUESTBIN" "$T_ROOT/build/modules" 2>/dev/null; }
a=$(build c1)
sleep 1.1
touch "$GUESTBIN"/* # newer file times in the inputs
b=$(build c2)
t_ok "two builds give an image each" sh -c "[ -s '$a' ] && [ -s '$b' ]"
t_ok "... with the same key" test "$(basename "$a")" = "$(basename "$b")"
t_ok "... byte for byte the same" cmp "$a" "$b"
# The base beside the image (build-initramfs.sh, the tests' guests): the
# image without stress-ng and the libraries only stress-ng needs.
list() { cpio -it --quiet <"$1" | LC_ALL=C sort; }
base=$(. "$T_ROOT/scripts/lib.sh" && . "$T_ROOT/scripts/lib-build.sh" && initrd_base "$a")
t_ok "the image has a base beside it" test -s "$base"
t_ok "... the same bytes from the same inputs" cmp "$base" "$(. "$T_ROOT/scripts/lib.sh" && . "$T_ROOT/scripts/lib-build.sh" && initrd_base "$b")"
only=$T_TMP/only
LC_ALL=C comm -23 <(list "$a") <(list "$base") >"$only"
t_ok "... which lacks stress-ng and its libraries" sh -c "grep -qx 'usr/bin/stress-ng' '$only' && grep -q '/libIPSec_MB' '$only'"
t_ok "... and only those" sh -c "! grep -vx -e 'usr/bin/stress-ng' -e 'lib/.*/lib.*\.so.*' '$only'"
t_ok "... and has nothing the image lacks" test -z "$(LC_ALL=C comm -13 <(list "$a") <(list "$base"))"
t_ok "... and has cyclictest and its libraries" sh -c "cpio -it --quiet <'$base' | grep -qx 'usr/bin/cyclictest' && cpio -it --quiet <'$base' | grep -q '/libnuma'"
t_ok "... and has rtla (timerlat) and its libraries" sh -c "cpio -it --quiet <'$base' | grep -qx 'usr/bin/rtla' && cpio -it --quiet <'$base' | grep -q '/libtracefs\.so' && cpio -it --quiet <'$base' | grep -q '/libtraceevent\.so'"
