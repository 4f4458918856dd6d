#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The cache keeps the current build, the newest other one and those made in
# the last 12 hours (a parallel checkout's); pruning works
# under set -euo pipefail on a cache holding only the current entry (a
# fresh machine), where an empty match must not abort the build.
. "$(dirname "$0")/lib.sh"
prune() { # prune CACHE CURRENT: run prune_cache as the build scripts do
	SLB_CACHE=$1 bash -c 'set -euo pipefail; . "$0/scripts/lib.sh"; prune_cache kernel "$1"; echo done' "$T_ROOT" "$2"
}
c=$T_TMP/cache
mkdir -p "$c/kernel-aa"
only_current() { [ "$(prune "$c" "$c/kernel-aa" 2>/dev/null)" = done ]; }
t_ok "a cache with only the current entry: pruning succeeds" only_current
for k in bb cc dd ee; do mkdir "$c/kernel-$k"; touch -d "-$((RANDOM % 5 + 20)) hours" "$c/kernel-$k"; done
touch -d '-13 hours' "$c/kernel-dd"
touch -d '-30 hours' "$c/kernel-bb"
touch -d '-1 hour' "$c/kernel-ee"
mkdir "$c/kernel-ff" && touch -d '-2 hours' "$c/kernel-ff"
prune "$c" "$c/kernel-aa" >/dev/null 2>&1
t_ok "the current entry is kept" test -d "$c/kernel-aa"
t_ok "the newest other entry is kept" test -d "$c/kernel-ee"
t_ok "entries made in the last 12 hours are kept (a parallel checkout's)" test -d "$c/kernel-ff"
t_ok "older entries are removed" sh -c "[ ! -e '$c/kernel-bb' ] && [ ! -e '$c/kernel-cc' ] && [ ! -e '$c/kernel-dd' ]"
mkdir -p "$c/qemu-unpatched-11" "$c/qemu-22" "$c/qemu-33"
SLB_CACHE=$c bash -c '. "$0/scripts/lib.sh"; prune_cache qemu "$1"' "$T_ROOT" "$c/qemu-33" 2>/dev/null
t_ok "the unpatched reference QEMU is not pruned with the patched ones" test -d "$c/qemu-unpatched-11"
