#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Build the guest kernel: Debian's linux-source-6.12, patch/linux/series
# applied in order, configured from tinyconfig + rt-config/*.config, built
# outside the repo in a cache directory keyed by a hash of all inputs.
#
#   build-kernel.sh [--variant V]          build if needed, print the directory
#   build-kernel.sh [--variant V] --path   print the directory, build nothing
#   build-kernel.sh --variants             list the variants
# The directory holds src/ (patched tree), build/ (O= output with
# arch/x86/boot/bzImage and .config) and build.log.
#
# Variants (--variant), so that a test or a study scenario can show what a
# patch or a build choice does (exit 2 for another name):
#   nofix    the series without the per-CPU re-enable backport (0007): the
#            upstream warn-mode bug that leaves detection off on a CPU
#   defwarn  rt-config/variants/defwarn.config on top: the build-time
#            default mode warn instead of the study's off (0001, 0002)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

PKG=linux-source-6.12
TARBALL=/usr/src/$PKG.tar.xz
VARIANTS="nofix defwarn"

# variant_drop VARIANT: the series file the variant leaves out.
variant_drop() {
	case $1 in
	nofix) echo 0007-x86-split_lock-Re-enable-detection-on-every-CPU-in-w.patch ;;
	esac
}

# kernel_configs: the config fragments, in merge order (later ones win).
kernel_configs() {
	echo "$SLB_ROOT"/rt-config/*.config
	[ -z "$variant" ] || [ ! -f "$SLB_ROOT/rt-config/variants/$variant.config" ] ||
		echo "$SLB_ROOT/rt-config/variants/$variant.config"
}

# kernel_patches: the series' patch files, without the variant's one.
kernel_patches() {
	local p drop=
	[ -z "$variant" ] || drop=$(variant_drop "$variant")
	for p in $(series_files "$SLB_ROOT/patch/linux"); do
		[ "${p##*/}" = "$drop" ] || echo "$p"
	done
}

kernel_dir() {
	local ver
	ver=$(dpkg-query -W -f='${Version}' "$PKG" 2>/dev/null) ||
		die "$PKG is not installed: run 'make deps'"
	# What decides the output: sources, patches, config, this script (not
	# lib.sh or check-kconfig.sh, which only report; nor whether ccache is
	# there: lib.sh use_ccache, which changes no object, t0011).
	# shellcheck disable=SC2046
	echo "$SLB_CACHE/kernel${variant:+-$variant}-$(hash_inputs "$PKG=$ver" $(kernel_configs) \
		"$SLB_ROOT/patch/linux/series" $(kernel_patches) "$SLB_ROOT/scripts/build-kernel.sh")"
}

variant=
main() {
	local dir jobs path_only=
	while [ $# -gt 0 ]; do
		case $1 in
		--path) path_only=1; shift ;;
		--variants) echo "$VARIANTS"; return ;;
		--variant)
			[ $# -ge 2 ] || usage_error "--variant needs a value (allowed: $VARIANTS)"
			case " $VARIANTS " in *" $2 "*) ;; *) usage_error "--variant '$2' is unknown (allowed: $VARIANTS)" ;; esac
			[ -z "$(variant_drop "$2")" ] || [ -f "$SLB_ROOT/patch/linux/$(variant_drop "$2")" ] ||
				die "--variant $2 leaves out $(variant_drop "$2"), which is not in patch/linux"
			variant=$2; shift 2 ;;
		*) usage_error "unknown argument '$1' (allowed: --path, --variants, --variant $VARIANTS)" ;;
		esac
	done
	dir=$(kernel_dir)
	if [ -n "$path_only" ]; then
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
	mkdir -p "$dir"
	local log=$dir/build.log src=$dir/src main= drop
	# A variant starts from a copy of the main kernel's object tree, so
	# that kbuild recompiles only what differs: defwarn (one Kconfig choice)
	# builds from the main kernel's own sources, nofix (one patch less) from
	# a hard-linked copy of them with that patch taken out again (patch
	# replaces the files it changes, so the main tree stays as it is). The
	# copy's commands name the main tree's paths (objtool's objects, and
	# nofix's sources): rewritten to the copy's, or kbuild would rebuild
	# everything. defwarn took 4 min the first time (the compiler cache
	# preprocesses every file again when autoconf.h changes), now 14 s.
	# SLB_KERNEL_FULL=1 builds a variant from scratch: the same .config,
	# vmlinux and bzImage (t0016).
	if [ -n "$variant" ] && [ "${SLB_KERNEL_FULL:-0}" != 1 ]; then
		main=$(variant='' kernel_dir)
		[ -f "$main/.done" ] || main=
	fi
	if [ -n "$main" ]; then
		drop=$(variant_drop "$variant")
		say "deriving the $variant variant from the main kernel's objects ($main)" 2>&1 | tee -a "$log" >&2
		if [ -z "$drop" ]; then
			src=$main/src
			ln -s "$src" "$dir/src"
		elif ! { cp -al "$main/src" "$dir/src" &&
			patch -d "$dir/src" -p1 --batch --reverse --quiet <"$SLB_ROOT/patch/linux/$drop" >>"$log" 2>&1; }; then
			say "could not take ${drop} out of a copy of the main kernel's sources (log: $log); building in full"
			rm -rf "$dir/src"
			main=
		fi
	fi
	if [ -n "$main" ]; then
		cp -a "$main/build" "$dir/build"
		grep -rlIZF "$main/" "$dir/build" | xargs -0 -r sed -i "s|$main/build|$dir/build|g; s|$main/src|$src|g"
	else
		mkdir -p "$dir/src" "$dir/build"
		say "extracting $TARBALL"
		tar -xJf "$TARBALL" -C "$dir/src" --strip-components=1
		# shellcheck disable=SC2046
		apply_patches "$dir/src" "$log" "$PKG" $(kernel_patches)
	fi
	# shellcheck disable=SC2046
	say "configuring: tinyconfig + $(kernel_configs | sed "s|$SLB_ROOT/||g")"
	# Not for a derived variant: its few objects need no cache, and ccache's
	# base_dir would give their __FILE__ the path to the main kernel's tree.
	[ -n "$main" ] || use_ccache
	# The image does not depend on when, by whom or where (which cache
	# entry) it was built, nor on ccache (scripts/lib.sh use_ccache, whose
	# base_dir rewrites $dir/src/ to ../src/; the second map gives __FILE__
	# what the kernel's own map of $dir/src/ gives without ccache).
	export KBUILD_BUILD_TIMESTAMP='Thu Jan  1 00:00:00 UTC 2026' KBUILD_BUILD_USER=splitlock-bench
	export KBUILD_BUILD_HOST=cache KBUILD_BUILD_VERSION=1
	local mk=(make -C "$src" O="$dir/build" ARCH=x86_64 KCFLAGS=-fmacro-prefix-map=../src/= KAFLAGS=-fmacro-prefix-map=../src/=)
	run_logged "$log" "${mk[@]}" tinyconfig
	# shellcheck disable=SC2046
	run_logged "$log" env -C "$dir/build" "$src/scripts/kconfig/merge_config.sh" \
		-m .config $(kernel_configs)
	run_logged "$log" "${mk[@]}" olddefconfig
	# shellcheck disable=SC2046
	"$SLB_ROOT/scripts/check-kconfig.sh" "$dir/build/.config" $(kernel_configs) ||
		die "kernel configuration lost options (see above)"
	jobs=$(nproc)
	say "building bzImage and modules with -j$jobs (about 5 min on 2 cores; log: $log)"
	with_heartbeat 30 "kernel build" run_logged "$log" "${mk[@]}" -j"$jobs" bzImage modules
	touch "$dir/.done"
	prune_cache "kernel${variant:+-$variant}" "$dir"
	say "kernel${variant:+ ($variant)} ready: $dir/build/arch/x86/boot/bzImage"
	echo "$dir"
}

main "$@"
