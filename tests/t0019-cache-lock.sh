#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# One build of a cache entry at a time (scripts/lib.sh cache_lock): a
# build script that finds its entry being built by another process waits
# for it, instead of removing the tree the other is building in (two
# makes at once, or two checkouts sharing the cache, each destroyed the
# other's kernel and QEMU trees). No compiler runs here: the entry is a
# stand-in, the other build a process holding its lock.
. "$(dirname "$0")/lib.sh"
export SLB_CACHE=$T_TMP/cache
for script in build-qemu build-kernel; do
	entry=$("$T_ROOT/scripts/$script.sh" --path)
	entry=${entry%/build/qemu-system-x86_64}
	mkdir -p "$entry"
	echo building >"$entry/in-progress"
	flock "$entry.lock" sleep 6 &
	holder=$!
	sleep 0.5
	timeout 3 "$T_ROOT/scripts/$script.sh" >"$T_TMP/$script.out" 2>&1
	t_ok "$script: a second build waits for the one under way" grep -q "waiting for another build of $entry" "$T_TMP/$script.out"
	t_ok "$script: ... and leaves its tree alone" test -f "$entry/in-progress"
	kill "$holder" 2>/dev/null
	wait "$holder" 2>/dev/null || true
done
