#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Build the emulator: Debian's qemu 7.2 source (apt-get source, through a
# deb-src list of our own kept in the cache; the system's apt configuration
# is never edited), patch/qemu/series applied in order, x86_64-softmmu with
# TCG only and the devices of rt-config/qemu-devices.mak, in a cache
# directory keyed by source version, patches and that device set.
#
#   build-qemu.sh              build if needed, print the qemu-system-x86_64 path
#   build-qemu.sh --path       print that path, build nothing
#   build-qemu.sh --unpatched [--path]   the same build without patch/qemu, the
#                              fair reference for the cost benchmark
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$SLB_ROOT/scripts/lib-build.sh"

APT=$SLB_CACHE/apt
FIRMWARE=/usr/share/qemu:/usr/share/seabios:/usr/lib/ipxe/qemu
DEVICES=$SLB_ROOT/rt-config/qemu-devices.mak

# Our deb-src list mirrors the machine's deb entries, so it uses whatever
# mirror the machine is set up for.
apt_own() {
	apt-get -o Dir::Etc::SourceList="$APT/sources.list" \
		-o Dir::Etc::SourceParts="$APT/sources.list.d" \
		-o Dir::State::Lists="$APT/lists" \
		-o Dir::Cache="$APT/cache" "$@"
}

refresh_sources() {
	local f
	mkdir -p "$APT/sources.list.d" "$APT/lists/partial" "$APT/cache/archives/partial"
	: >"$APT/sources.list"
	[ -f /etc/apt/sources.list ] &&
		sed -n 's/^deb \(.*\)/deb-src \1/p' /etc/apt/sources.list >"$APT/sources.list"
	rm -f "$APT"/sources.list.d/*
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		sed 's/^Types:.*/Types: deb-src/' "$f" >"$APT/sources.list.d/$(basename "$f")"
	done
	for f in /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		sed -n 's/^deb \(.*\)/deb-src \1/p' "$f" >"$APT/sources.list.d/$(basename "$f")"
	done
	apt_own update -qq >/dev/null 2>"$APT/update.log" ||
		die "apt-get update of our deb-src list failed (log: $APT/update.log)"
}

# The source version is that of the qemu the machine has installed.
source_version() {
	local v
	v=$(dpkg-query -W -f='${source:Version}' qemu-system-x86 2>/dev/null) ||
		die "qemu-system-x86 is not installed: run 'make deps'"
	echo "$v"
}

UNPATCHED=0
patches() { [ "$UNPATCHED" = 1 ] || series_files "$SLB_ROOT/patch/qemu"; }

qemu_dir() {
	# What decides the output: sources, patches, config, this script (not
	# lib.sh, whose helpers only report progress; nor whether ccache is
	# there: lib.sh use_ccache, which changes no object, t0011).
	# shellcheck disable=SC2046
	if [ "$UNPATCHED" = 1 ]; then
		echo "$SLB_CACHE/qemu-unpatched-$(hash_inputs "qemu=$(source_version)" "$DEVICES" "$SLB_ROOT/scripts/build-qemu.sh")"
	else
		echo "$SLB_CACHE/qemu-$(hash_inputs "qemu=$(source_version)" \
			"$SLB_ROOT/patch/qemu/series" $(series_files "$SLB_ROOT/patch/qemu") \
			"$DEVICES" "$SLB_ROOT/scripts/build-qemu.sh")"
	fi
}

main() {
	local dir ver src log
	if [ "${1:-}" = --unpatched ]; then
		UNPATCHED=1
		shift
	fi
	dir=$(qemu_dir)
	if [ "${1:-}" = --path ]; then
		echo "$dir/build/qemu-system-x86_64"
		return
	fi
	cache_lock "$dir"
	if [ -f "$dir/.done" ]; then
		say "qemu up to date: $dir"
		echo "$dir/build/qemu-system-x86_64"
		return
	fi
	ver=$(source_version)
	rm -rf "$dir"
	mkdir -p "$dir"
	log=$dir/build.log
	say "fetching qemu source $ver with apt-get source (own deb-src list in $APT)"
	refresh_sources
	(cd "$dir" && run_logged "$log" apt_own source -qq "qemu=$ver")
	src=$(find "$dir" -mindepth 1 -maxdepth 1 -type d -name 'qemu-*' | head -n 1)
	[ -n "$src" ] || die "apt-get source produced no qemu-* directory (log: $log)"
	mv "$src" "$dir/src"
	# The dfsg tarball has no edk2 blobs to unpack.
	sed -i "s/^unpack_edk2_blobs = .*/unpack_edk2_blobs = false/" "$dir/src/meson.build"
	grep -q '^unpack_edk2_blobs = false' "$dir/src/meson.build" ||
		die "could not disable unpack_edk2_blobs in meson.build"
	# shellcheck disable=SC2046
	apply_patches "$dir/src" "$log" "qemu $ver" $(patches)
	# The devices: what the guest's machine has and the tests add to it, not
	# a default build's every device (rt-config/qemu-devices.mak).
	cp "$DEVICES" "$dir/src/configs/devices/x86_64-softmmu/slb.mak"
	say "configuring x86_64-softmmu, TCG only, the devices of ${DEVICES#"$SLB_ROOT"/}"
	mkdir -p "$dir/build"
	use_ccache
	# The binary does not depend on which cache entry it was built in, nor
	# on ccache (scripts/lib.sh use_ccache, whose base_dir rewrites
	# $dir/src/ to ../src/): __FILE__ and debug paths say ../src/ and the
	# compile directory "." either way. --enable-qom-cast-debug turns on
	# QOM's per-class cache of cast results: without it, every cast of a
	# class with interfaces looks its type up by name in a hash table, and
	# cpu_exec() casts on every entry and exit, once per lock-step slice
	# (3 % of a guest run's host time); the cast checks it adds are cheap.
	run_logged "$log" env -C "$dir/build" ../src/configure \
		--target-list=x86_64-softmmu --without-default-features --enable-tcg \
		--without-default-devices --with-devices-x86_64=slb \
		--disable-kvm --disable-docs --disable-werror --disable-install-blobs \
		--enable-qom-cast-debug \
		--firmwarepath="$FIRMWARE" \
		--extra-cflags="-fmacro-prefix-map=$dir/src/=../src/ -fdebug-prefix-map=$dir/src/=../src/ -fdebug-prefix-map=$dir/build=."
	say "building qemu-system-x86_64 (about 2.5 min on 2 cores; log: $log)"
	with_heartbeat 30 "qemu build" run_logged "$log" ninja -C "$dir/build" qemu-system-x86_64
	touch "$dir/.done"
	[ "$UNPATCHED" = 1 ] || prune_cache qemu "$dir"
	say "qemu ready: $dir/build/qemu-system-x86_64"
	echo "$dir/build/qemu-system-x86_64"
}

main "$@"
