#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Build the guest initramfs: busybox-static, cyclictest, rtla (timerlat)
# and stress-ng with their shared libraries, our static guest programs and modules, /init and the built-in
# jobs. Cached by a hash of everything that goes in.
#
#   build-initramfs.sh EXTRA_DIR...   build if needed, print the image path
# Every file in each EXTRA_DIR lands in /bin (programs) or /lib/modules
# (*.ko) of the image. Exit status: 0 built or up to date, 1 a build
# step failed, 2 no EXTRA_DIR or one that is not a directory.
#
# Beside the image (initramfs-KEY.cpio) lies its base (initramfs-KEY.base.cpio,
# scripts/lib.sh initrd_base): the same image without stress-ng and the
# libraries only it needs, 14 of 44 MB. Every boot unpacks its image under
# emulation, in host time that grows with its size; the study's guests all
# boot the whole image (one image for every scenario: an image's bytes move
# the guest's timing, bench/experiment/image-change.sh), the tests' own guests, which
# never run stress-ng, the base.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$SLB_ROOT/scripts/lib-build.sh"

GUEST=$SLB_ROOT/bench/guest
HOST_PROGS=(/bin/busybox /usr/bin/cyclictest /usr/bin/rtla /usr/bin/stress-ng)

inputs() {
	local d
	printf '%s\n' "${HOST_PROGS[@]}" "$0" "$SLB_ROOT/scripts/lib-build.sh" \
		"$GUEST/init" "$GUEST/slb-lib.sh" "$GUEST"/jobs/*.sh
	for d in "$@"; do
		find "$d" -maxdepth 1 -type f | sort
	done
}

copy_with_libs() {
	local root=$1 prog=$2 lib
	install -D -m 0755 "$prog" "$root/usr/bin/$(basename "$prog")"
	for lib in $(ldd "$prog" 2>/dev/null | grep -o '/[^ ]*' | sort -u); do
		install -D -m 0755 "$lib" "$root$lib"
	done
}

main() {
	local key out root f d
	[ $# -gt 0 ] || usage_error "no EXTRA_DIR given (usage: build-initramfs.sh EXTRA_DIR...)"
	for d in "$@"; do
		[ -d "$d" ] || usage_error "EXTRA_DIR '$d' is not a directory (allowed: directories of programs and modules)"
	done
	command -v busybox >/dev/null || [ -x /bin/busybox ] || die "busybox-static missing: run 'make deps'"
	[ -x /usr/bin/cyclictest ] || die "rt-tests (cyclictest) missing: run 'make deps'"
	[ -x /usr/bin/stress-ng ] || die "stress-ng missing: run 'make deps'"
	[ -x /usr/bin/rtla ] || die "rtla missing: run 'make deps'"
	# shellcheck disable=SC2046
	key=$(hash_inputs $(inputs "$@") "busybox=$(dpkg-query -W -f='${Version}' busybox-static)" \
		"rt-tests=$(dpkg-query -W -f='${Version}' rt-tests)" \
		"rtla=$(dpkg-query -W -f='${Version}' rtla)" \
		"stress-ng=$(dpkg-query -W -f='${Version}' stress-ng)")
	out=$SLB_CACHE/initramfs-$key.cpio
	if [ -f "$out" ] && [ -f "$(initrd_base "$out")" ]; then
		say "initramfs up to date: $out"
		echo "$out"
		return
	fi
	mkdir -p "$SLB_CACHE"
	root=$(mktemp -d "$SLB_CACHE/initramfs-root.XXXXXX")
	trap "rm -rf '$root' '$out.tmp' '$out.base.tmp'" EXIT
	mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,run,lib/modules,jobs}
	install -m 0755 /bin/busybox "$root/bin/busybox"
	for f in $(/bin/busybox --list-full); do
		[ -e "$root/$f" ] || ln -s /bin/busybox "$root/$f"
	done
	copy_with_libs "$root" /usr/bin/cyclictest
	copy_with_libs "$root" /usr/bin/rtla
	install -m 0755 "$GUEST/init" "$root/init"
	install -m 0644 "$GUEST/slb-lib.sh" "$root/lib/slb-lib.sh"
	install -m 0644 "$GUEST"/jobs/*.sh "$root/jobs/"
	for d in "$@"; do
		for f in "$d"/*; do
			[ -f "$f" ] || continue
			case $f in
			*.ko) install -m 0644 "$f" "$root/lib/modules/" ;;
			*) install -m 0755 "$f" "$root/bin/" ;;
			esac
		done
	done
	mknod -m 600 "$root/dev/console" c 5 1 2>/dev/null || true
	pack "$root" "$out.base.tmp"
	copy_with_libs "$root" /usr/bin/stress-ng
	pack "$root" "$out.tmp"
	mv "$out.base.tmp" "$(initrd_base "$out")"
	mv "$out.tmp" "$out"
	prune_cache initramfs "$out"
	say "initramfs ready: $out ($(du -h "$out" | cut -f1); without stress-ng $(du -h "$(initrd_base "$out")" | cut -f1))"
	echo "$out"
}

# pack ROOT FILE: ROOT as a newc cpio in FILE.
pack() {
	# The same bytes from the same inputs: every file time 0, inode numbers
	# renumbered. Guest timing depends on the image's bytes (its
	# unpacking), so a rebuilt image that differed only in file times gave
	# other histograms for the same seed. Not compressed: every rep's guest
	# unpacks it under emulation, where inflating a gzip'd image cost more
	# host time per boot than copying a plain one three times its size (LZ4
	# saved no more than no compression does); the host loads it at once.
	find "$1" -exec touch -h -d @0 {} +
	(cd "$1" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --reproducible --quiet) >"$2"
}

main "$@"
