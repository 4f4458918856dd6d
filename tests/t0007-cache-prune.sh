#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The cache keeps the current build, the newest other one and those made in
# the last 12 hours (a parallel checkout's); pruning works
# under set -euo pipefail on a cache holding only the current entry (a
# fresh machine), where an empty match must not abort the build. Entries
# are named by a 16-hex-digit key: the main kernel's pruning leaves the
# variants' (kernel-defwarn-*: "d" is a hex digit, and the glob took them
# once).
. "$(dirname "$0")/lib.sh"
prune() { # prune CACHE CURRENT: run prune_cache as the build scripts do
	SLB_CACHE=$1 bash -c 'set -euo pipefail; . "$0/scripts/lib.sh"; . "$0/scripts/lib-build.sh"; prune_cache kernel "$1"; echo done' "$T_ROOT" "$2"
}
c=$T_TMP/cache
k() { printf '%s' "$1$1$1$1$1$1$1$1"; } # a 16-digit key from 2 hex digits
mkdir -p "$c/kernel-$(k aa)"
only_current() { [ "$(prune "$c" "$c/kernel-$(k aa)" 2>/dev/null)" = done ]; }
t_ok "a cache with only the current entry: pruning succeeds" only_current
for x in bb cc dd ee; do mkdir "$c/kernel-$(k $x)"; touch -d "-$((RANDOM % 5 + 20)) hours" "$c/kernel-$(k $x)"; done
touch -d '-13 hours' "$c/kernel-$(k dd)"
touch -d '-30 hours' "$c/kernel-$(k bb)"
touch -d '-1 hour' "$c/kernel-$(k ee)"
mkdir "$c/kernel-$(k ff)" && touch -d '-2 hours' "$c/kernel-$(k ff)"
mkdir "$c/kernel-defwarn-$(k 12)" && touch -d '-30 hours' "$c/kernel-defwarn-$(k 12)"
prune "$c" "$c/kernel-$(k aa)" >/dev/null 2>&1
t_ok "the current entry is kept" test -d "$c/kernel-$(k aa)"
t_ok "the newest other entry is kept" test -d "$c/kernel-$(k ee)"
t_ok "entries made in the last 12 hours are kept (a parallel checkout's)" test -d "$c/kernel-$(k ff)"
t_ok "older entries are removed" sh -c "[ ! -e '$c/kernel-$(k bb)' ] && [ ! -e '$c/kernel-$(k cc)' ] && [ ! -e '$c/kernel-$(k dd)' ]"
t_ok "a variant's entry is not the main kernel's to prune" test -d "$c/kernel-defwarn-$(k 12)"
mkdir -p "$c/qemu-unpatched-$(k 11)" "$c/qemu-$(k 22)" "$c/qemu-$(k 33)"
SLB_CACHE=$c bash -c '. "$0/scripts/lib.sh"; . "$0/scripts/lib-build.sh"; prune_cache qemu "$1"' "$T_ROOT" "$c/qemu-$(k 33)" 2>/dev/null
t_ok "the unpatched reference QEMU is not pruned with the patched ones" test -d "$c/qemu-unpatched-$(k 11)"
for a in 44 55 66; do touch "$c/initramfs-$(k $a).cpio"; touch -d '-30 hours' "$c/initramfs-$(k $a).cpio"; done
SLB_CACHE=$c bash -c '. "$0/scripts/lib.sh"; . "$0/scripts/lib-build.sh"; prune_cache initramfs "$1"' "$T_ROOT" "$c/initramfs-$(k 66).cpio" 2>/dev/null
t_ok "an initramfs image (a key and a suffix) is pruned too" sh -c "[ ! -e '$c/initramfs-$(k 44).cpio' ] && [ -e '$c/initramfs-$(k 55).cpio' ] && [ -e '$c/initramfs-$(k 66).cpio' ]"
# An image and its base (initramfs-KEY.base.cpio, build-initramfs.sh) are
# one entry: both stay with the current key or the newest other, both go
# with an old one.
c2=$T_TMP/cache2
mkdir -p "$c2"
for a in 77 88 99; do
	touch "$c2/initramfs-$(k $a).cpio" "$c2/initramfs-$(k $a).base.cpio"
	touch -d "-$((a - 40)) hours" "$c2/initramfs-$(k $a).cpio" "$c2/initramfs-$(k $a).base.cpio"
done
SLB_CACHE=$c2 bash -c '. "$0/scripts/lib.sh"; . "$0/scripts/lib-build.sh"; prune_cache initramfs "$1"' "$T_ROOT" "$c2/initramfs-$(k 99).cpio" 2>/dev/null
t_ok "the current image keeps its base" test -e "$c2/initramfs-$(k 99).base.cpio"
t_ok "the newest other image keeps its base" sh -c "[ -e '$c2/initramfs-$(k 77).cpio' ] && [ -e '$c2/initramfs-$(k 77).base.cpio' ]"
t_ok "an old image goes with its base" sh -c "[ ! -e '$c2/initramfs-$(k 88).cpio' ] && [ ! -e '$c2/initramfs-$(k 88).base.cpio' ]"
