#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# One build of a cache entry at a time (scripts/lib-build.sh cache_lock): a
# build script that finds its entry being built by another process waits
# for it, instead of removing the tree the other is building in (two
# makes at once, or two checkouts sharing the cache, each destroyed the
# other's kernel and QEMU trees). No compiler runs here: the entry is a
# stand-in, the other build a process holding its lock.
. "$(dirname "$0")/lib.sh"
export SLB_CACHE=$T_TMP/cache
# waiting_seen OUT PID: OUT says the build waits, within 60 s (the key is
# hashed first, which is slow on a loaded machine), while PID still runs.
waiting_seen() {
	local n=600
	while [ $n -gt 0 ]; do
		grep -q "waiting for another build of $entry" "$1" && kill -0 "$2" 2>/dev/null && return 0
		kill -0 "$2" 2>/dev/null || { echo "the second build ended: $(cat "$1")"; return 1; }
		sleep 0.1
		n=$((n - 1))
	done
	echo "no 'waiting' line in 60 s: $(cat "$1")"
	return 1
}
for script in build-qemu build-kernel; do
	entry=$("$T_ROOT/scripts/$script.sh" --path)
	entry=${entry%/build/qemu-system-x86_64}
	mkdir -p "$entry"
	echo building >"$entry/in-progress"
	# the holder: a shell that takes the lock and becomes the sleep, so
	# that killing it frees the lock and leaves nothing behind
	(exec 9>"$entry.lock" && flock 9 && exec sleep 120) </dev/null >/dev/null 2>&1 &
	holder=$!
	sleep 0.5
	"$T_ROOT/scripts/$script.sh" </dev/null >"$T_TMP/$script.out" 2>&1 &
	second=$!
	t_ok "$script: a second build waits for the one under way" waiting_seen "$T_TMP/$script.out" "$second"
	t_ok "$script: ... and leaves its tree alone" test -f "$entry/in-progress"
	kill "$second" "$holder" 2>/dev/null
	wait "$second" "$holder" 2>/dev/null || true
done
