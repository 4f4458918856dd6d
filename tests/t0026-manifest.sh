#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/manifest.sh, an emulated run's manifest, without a guest: the
# parameters keep their types (numbers stay numbers, a value may hold
# '=', an empty one stays a string), the patch hashes name every patch of
# both series with the first 16 hex digits of its sha256, and it costs a
# few jq calls, not one per parameter and patch (about 100: a jq costs
# some 17 ms of CPU to start, 1.7 s per study).
. "$(dirname "$0")/lib.sh"
d=$T_TMP/run
mkdir -p "$d"
printf 'baseline\nsplit-off\n' >"$d/scenarios.list"
args=(duration_s=3 reps=2 vcpus=2 clock=virtual cpu=Snowridge,-hypervisor bus_lock_ns=1e3 note=a=b=c empty= neg=-5 -n)
n=$(t_jq_calls "$T_TMP/jq.log" env -u SLB_QEMU "$T_ROOT/bench/manifest.sh" "$d" x "${args[@]}")
env -u SLB_QEMU "$T_ROOT/bench/manifest.sh" "$d" x "${args[@]}" >"$T_TMP/m.json"
t_ok "the manifest parses, with the run id and the scenarios" \
	jq -e '.run_id == "x" and .emulated == true and .params.scenarios == ["baseline", "split-off"]' "$T_TMP/m.json"
t_ok "parameters keep their types: numbers, strings, '=' inside a value, an empty value, a word like an option" \
	jq -e '.params | .duration_s == 3 and .reps == 2 and .clock == "virtual" and .cpu == "Snowridge,-hypervisor"
		and .bus_lock_ns == 1000 and .note == "a=b=c" and .empty == "" and .neg == -5 and .["-n"] == "-n"' "$T_TMP/m.json"
# want SERIES: the hashes the manifest should hold for patch/SERIES
want() {
	local p
	(. "$T_ROOT/scripts/lib.sh" && . "$T_ROOT/scripts/lib-build.sh" && series_files "$T_ROOT/patch/$1") |
		while read -r p; do printf '%s %s\n' "$(basename "$p")" "$(sha256sum "$p" | cut -c1-16)"; done
}
t_ok "every QEMU patch, in series order, with its hash" \
	diff <(want qemu) <(jq -r '.qemu.patches | to_entries[] | "\(.key) \(.value)"' "$T_TMP/m.json")
t_ok "every kernel patch, in series order, with its hash" \
	diff <(want linux) <(jq -r '.kernel.patches | to_entries[] | "\(.key) \(.value)"' "$T_TMP/m.json")
t_ok "a few jq calls, not one per parameter and patch (at most 8; it made $n)" \
	sh -c "[ '$n' -le 8 ] || { cut -c1-80 '$T_TMP/jq.log' | sort | uniq -c | sort -rn | head -5; exit 1; }"
