#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Build the guest kernel: Debian's linux-source-6.12, patch/linux/series
# applied in order, configured from tinyconfig + rt-config/*.config, built
# outside the repo in a cache directory keyed by a hash of all inputs.
#
#   build-kernel.sh          build if needed, print the kernel directory
#   build-kernel.sh --path   print the kernel directory, build nothing
# The directory holds src/ (patched tree), build/ (O= output with
# arch/x86/boot/bzImage and .config) and build.log.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

PKG=linux-source-6.12
TARBALL=/usr/src/$PKG.tar.xz

kernel_dir() {
	local ver
	ver=$(dpkg-query -W -f='${Version}' "$PKG" 2>/dev/null) ||
		die "$PKG is not installed: run 'make deps'"
	# What decides the output: sources, patches, config, this script (not
	# lib.sh or check-kconfig.sh, which only report).
	# shellcheck disable=SC2046
	echo "$SLB_CACHE/kernel-$(hash_inputs "$PKG=$ver" "$SLB_ROOT"/rt-config/*.config \
		"$SLB_ROOT/patch/linux/series" $(series_files "$SLB_ROOT/patch/linux") \
		"$SLB_ROOT/scripts/build-kernel.sh")"
}

main() {
	local dir jobs
	dir=$(kernel_dir)
	if [ "${1:-}" = --path ]; then
		echo "$dir"
		return
	fi
	if [ -f "$dir/.done" ]; then
		say "kernel up to date: $dir"
		echo "$dir"
		return
	fi
	[ -f "$TARBALL" ] || die "$TARBALL missing: run 'make deps'"
	rm -rf "$dir"
	mkdir -p "$dir/src" "$dir/build"
	local log=$dir/build.log
	say "extracting $TARBALL"
	tar -xJf "$TARBALL" -C "$dir/src" --strip-components=1
	# shellcheck disable=SC2046
	apply_patches "$dir/src" "$log" "$PKG" $(series_files "$SLB_ROOT/patch/linux")
	say "configuring: tinyconfig + $(cd "$SLB_ROOT" && echo rt-config/*.config)"
	local mk=(make -C "$dir/src" O="$dir/build" ARCH=x86_64)
	run_logged "$log" "${mk[@]}" tinyconfig
	run_logged "$log" env -C "$dir/build" "$dir/src/scripts/kconfig/merge_config.sh" \
		-m .config "$SLB_ROOT"/rt-config/*.config
	run_logged "$log" "${mk[@]}" olddefconfig
	"$SLB_ROOT/scripts/check-kconfig.sh" "$dir/build/.config" "$SLB_ROOT"/rt-config/*.config ||
		die "kernel configuration lost options (see above)"
	jobs=$(nproc)
	say "building bzImage and modules with -j$jobs (about 5 min on 2 cores; log: $log)"
	with_heartbeat 30 "kernel build" run_logged "$log" "${mk[@]}" -j"$jobs" bzImage modules
	touch "$dir/.done"
	prune_cache kernel "$dir"
	say "kernel ready: $dir/build/arch/x86/boot/bzImage"
	echo "$dir"
}

main "$@"
