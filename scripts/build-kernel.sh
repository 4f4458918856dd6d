#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Build the guest kernel: Debian's linux-source-6.12, patch/linux/series
# applied in order, configured from tinyconfig + rt-config/*.config, built
# outside the repo in a cache directory keyed by a hash of all inputs.
#
#   build-kernel.sh [--variant V]          build if needed, print the directory
#   build-kernel.sh [--variant V] --path   print the directory, build nothing
#   build-kernel.sh --variants             list the variants
# The directory holds src/ (patched tree; a variant's, hard links to the
# main kernel's files but for the ones it changes), build/ (O= output with
# arch/x86/boot/bzImage and .config) and build.log.
#
# Variants (--variant), so that a test or a study scenario can show what a
# patch or a build choice does (exit 2 for another name):
#   nofix    the series without the per-CPU re-enable backport (0007): the
#            upstream warn-mode bug that leaves detection off on a CPU
#   defwarn  rt-config/variants/defwarn.config on top: the build-time
#            default mode warn instead of the study's off (0001, 0002)
#   hz250    rt-config/variants/hz250.config on top: CONFIG_HZ=250 instead
#            of the main kernel's 1000
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$SLB_ROOT/scripts/lib-build.sh"

PKG=linux-source-6.12
TARBALL=/usr/src/$PKG.tar.xz
VARIANTS="nofix defwarn hz250"

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

# rewrite_paths MAIN DIR: in the text files of DIR/build (a copy of
# MAIN/build), MAIN's paths become DIR's.
rewrite_paths() {
	local from=$1 to=$2 files
	files=$(grep -rlIF "$from/" "$to/build") || [ $? = 1 ] || return 1
	[ -z "$files" ] || printf '%s\n' "$files" | FROM=$from TO=$to xargs -d '\n' perl -pi -e 's/\Q$ENV{FROM}\E/$ENV{TO}/g'
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
	cache_lock "$dir"
	if [ -f "$dir/.done" ]; then
		say "kernel up to date: $dir"
		echo "$dir"
		return
	fi
	[ -f "$TARBALL" ] || die "$TARBALL missing: run 'make deps'"
	command -v lz4 >/dev/null || die "lz4 missing (the kernel image is LZ4-compressed): run 'make deps'"
	rm -rf "$dir"
	mkdir -p "$dir"
	local log=$dir/build.log main= drop=
	# A variant starts from a copy of the main kernel's object tree, so
	# that kbuild recompiles only what differs, built from a hard-linked
	# copy of the main kernel's sources (patch replaces the files it
	# changes, kbuild with O= writes none, so the main tree stays as it
	# is): defwarn (one Kconfig choice) as they are, nofix (one patch
	# less) with that patch taken out again, derived only while it is the
	# series' last, so that taking it out gives exactly the tree without
	# it. The copy's commands name the main tree's paths (objtool's
	# objects, the sources): rewritten to the copy's, or kbuild would
	# rebuild everything: a variant compiles only what its change reaches
	# (for a Kconfig choice, every file autoconf.h reaches, which the
	# compiler cache preprocesses again). SLB_KERNEL_FULL=1 builds a variant from
	# scratch (an entry marked .full): the same .config, vmlinux and
	# bzImage (t0016).
	if [ -n "$variant" ] && [ "${SLB_KERNEL_FULL:-0}" != 1 ]; then
		main=$(variant='' kernel_dir)
		drop=$(variant_drop "$variant")
		[ -f "$main/.done" ] || main=
		[ -z "$drop" ] || [ "$(series_files "$SLB_ROOT/patch/linux" | tail -n 1)" = "$SLB_ROOT/patch/linux/$drop" ] || main=
	fi
	if [ -n "$main" ]; then
		say "deriving the $variant variant from the main kernel's objects ($main)" 2>&1 | tee -a "$log" >&2
		if ! { cp -al "$main/src" "$dir/src" && cp -a "$main/build" "$dir/build" &&
			{ [ -z "$drop" ] || patch -d "$dir/src" -p1 --batch --reverse --forward --fuzz=0 --quiet \
				<"$SLB_ROOT/patch/linux/$drop" >>"$log" 2>&1; } &&
			rewrite_paths "$main" "$dir"; }; then
			say "could not derive the $variant variant (log: $log); building it in full" 2>&1 | tee -a "$log" >&2
			rm -rf "$dir/src" "$dir/build"
			main=
		fi
	fi
	if [ -z "$main" ]; then
		mkdir -p "$dir/src" "$dir/build"
		[ "${SLB_KERNEL_FULL:-0}" != 1 ] || touch "$dir/.full"
		say "extracting $TARBALL"
		tar -xJf "$TARBALL" -C "$dir/src" --strip-components=1
		# shellcheck disable=SC2046
		apply_patches "$dir/src" "$log" "$PKG" $(kernel_patches)
	fi
	# shellcheck disable=SC2046
	say "configuring: tinyconfig + $(kernel_configs | sed "s|$SLB_ROOT/||g")"
	use_ccache
	# The image does not depend on when, by whom or where (which cache
	# entry) it was built, nor on ccache (scripts/lib.sh use_ccache, whose
	# base_dir rewrites $dir/src/ to ../src/; the second map gives __FILE__
	# what the kernel's own map of $dir/src/ gives without ccache).
	export KBUILD_BUILD_TIMESTAMP='Thu Jan  1 00:00:00 UTC 2026' KBUILD_BUILD_USER=splitlock-bench
	export KBUILD_BUILD_HOST=cache KBUILD_BUILD_VERSION=1
	local mk=(make -C "$dir/src" O="$dir/build" ARCH=x86_64 KCFLAGS=-fmacro-prefix-map=../src/= KAFLAGS=-fmacro-prefix-map=../src/=)
	run_logged "$log" "${mk[@]}" tinyconfig
	# shellcheck disable=SC2046
	run_logged "$log" env -C "$dir/build" "$dir/src/scripts/kconfig/merge_config.sh" \
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
