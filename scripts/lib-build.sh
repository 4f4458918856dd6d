# SPDX-License-Identifier: GPL-2.0-or-later
# Helpers of the kernel, QEMU and initramfs builds: inputs hashed into
# cache keys, patch series, the cache lock, logged steps, ccache, pruning.
# A run input (scripts/lib.sh run_inputs): how a series is applied decides
# what a guest runs. Sourced after scripts/lib.sh, never run.

# hash_inputs ARG...: a short key over files (name and content) and strings.
hash_inputs() {
	local a
	for a in "$@"; do
		if [ -f "$a" ]; then
			printf 'F %s\n' "${a#"$SLB_ROOT"/}"
			cat "$a"
		else
			printf 'S %s\n' "$a"
		fi
	done | sha256sum | cut -c1-16
}

# series_files DIR: the patches named by DIR/series, in order, one per line.
series_files() {
	local dir=$1 line
	[ -f "$dir/series" ] || return 0
	while IFS= read -r line; do
		line=${line%%#*}
		line=$(printf '%s' "$line" | tr -d '[:space:]')
		[ -n "$line" ] || continue
		[ -f "$dir/$line" ] || die "$dir/series names '$line', which does not exist"
		printf '%s\n' "$dir/$line"
	done <"$dir/series"
}

# apply_patches SRCDIR LOG WHAT PATCH...: apply each PATCH to SRCDIR in
# order with patch -p1 (output in LOG); stop naming the first that fails
# to apply to WHAT.
apply_patches() {
	local src=$1 log=$2 what=$3 p
	shift 3
	for p in "$@"; do
		say "applying ${p#"$SLB_ROOT"/}"
		patch -d "$src" -p1 --batch --forward --quiet <"$p" >>"$log" 2>&1 ||
			die "${p#"$SLB_ROOT"/} does not apply to $what (log: $log)"
	done
}

# cache_lock ENTRY: hold ENTRY's lock (ENTRY.lock, fd 9) until the calling
# build ends: a second build of the same cache entry (another make, a
# checkout sharing the cache) waits for the first, then finds it built,
# instead of removing the tree the first is building in.
cache_lock() {
	mkdir -p "$(dirname "$1")" || die "cannot create $(dirname "$1")"
	exec 9>"$1.lock" || die "cannot open $1.lock"
	flock -n 9 && return 0
	say "waiting for another build of $1"
	flock 9 || die "cannot lock $1.lock"
}

# run_logged LOG CMD...: run CMD with output in LOG (or on the terminal with
# V=1); on failure show the log's tail and stop.
run_logged() {
	local log=$1
	shift
	if [ "${V:-0}" = 1 ]; then
		"$@" 2>&1 | tee -a "$log"
		[ "${PIPESTATUS[0]}" = 0 ] && return 0
	elif "$@" >>"$log" 2>&1; then
		return 0
	else
		tail -n 40 "$log" >&2
	fi
	die "failed: $* (full log: $log)"
}

# use_ccache: route the C compiler of the kernel and QEMU builds through
# Debian's ccache (make deps installs it) when it is there, its cache in
# $SLB_CACHE/ccache, so that a patch change rebuilds only the objects it
# touches. Not part of any cache key (lib.sh is not hashed): ccache must
# not change what is built, and the build scripts make sure it does not
# (objects identical with and without it, t0011): base_dir turns the
# absolute paths under $SLB_CACHE into relative ones (../src/...), the same
# in every cache entry, so that a new entry hits the objects of an older
# one; the build scripts map those paths in __FILE__ and debug information
# to what a build without ccache writes. SLB_CCACHE=0 builds without it.
use_ccache() {
	[ "${SLB_CCACHE:-1}" != 0 ] && command -v ccache >/dev/null && [ -d /usr/lib/ccache ] || return 0
	export CCACHE_DIR=$SLB_CACHE/ccache CCACHE_BASEDIR=$SLB_CACHE CCACHE_NOHASHDIR=1
	export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G} PATH=/usr/lib/ccache:$PATH
	mkdir -p "$CCACHE_DIR"
	say "compiler cache: ccache in $CCACHE_DIR"
}

# prune_cache PREFIX CURRENT: keep CURRENT, the newest other
# $SLB_CACHE/PREFIX-* entry (so that switching back is fast) and any made in
# the last 12 hours (another checkout or branch building beside this one
# may still use it); remove older ones, which only take disk space.
prune_cache() {
	local prefix=$1 current=$2 old hex=[0-9a-f][0-9a-f][0-9a-f][0-9a-f]
	# An entry is its key's files: PREFIX-KEY (a directory) or PREFIX-KEY.*
	# (initramfs-KEY.cpio and initramfs-KEY.base.cpio, one entry). The
	# key's 16 hex digits: "kernel" must not take "kernel-defwarn-*" (d, e
	# and f are hex digits). Entries newest first (by their newest file).
	old=$(ls -1dt "$SLB_CACHE/$prefix"-$hex$hex$hex$hex "$SLB_CACHE/$prefix"-$hex$hex$hex$hex.* 2>/dev/null |
		sed 's/\(-[0-9a-f]\{16\}\)\..*$/\1/' | awk '!seen[$0]++' |
		grep -vxF "$(echo "$current" | sed 's/\(-[0-9a-f]\{16\}\)\..*$/\1/')" | tail -n +2 |
		while read -r e; do
			[ -n "$(find "$e" "$e".* -maxdepth 0 -mmin -720 2>/dev/null)" ] || echo "$e"
		done || true)
	[ -z "$old" ] || {
		say "pruning old cache entries: $(echo "$old" | xargs -n1 basename | tr '\n' ' ')"
		echo "$old" | while read -r e; do rm -rf "$e" "$e".*; done
	}
}

# initrd_base IMAGE: the path of IMAGE's base (scripts/build-initramfs.sh:
# the image without stress-ng, which the tests' own guests boot).
initrd_base() { echo "${1%.cpio}.base.cpio"; }
