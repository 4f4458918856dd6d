#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Run tests/tNNNN-*.sh in order (or those named as arguments) and print one
# TAP stream, then "N passed, N failed, N skipped". Exit 1 if any failed.
set -u
cd "$(dirname "$0")" || exit 1
T_STATE=$(mktemp -d)
export T_STATE
trap 'rm -rf "$T_STATE"' EXIT
for c in n pass fail skip; do echo 0 >"$T_STATE/$c"; done
if [ $# -gt 0 ]; then scripts=("$@"); else scripts=(t[0-9]*.sh); fi
echo "TAP version 13"
for t in "${scripts[@]}"; do
	[ -f "$t" ] || { echo "run-tests: no test script '$t'" >&2; exit 2; }
	echo "# $t"
	start=$(date +%s)
	bash "$t" || { echo "not ok $(($(cat "$T_STATE/n") + 1)) - $t exited non-zero"; echo $(($(cat "$T_STATE/n") + 1)) >"$T_STATE/n"; echo $(($(cat "$T_STATE/fail") + 1)) >"$T_STATE/fail"; }
	echo "# $t took $(($(date +%s) - start)) s"
done
echo "1..$(cat "$T_STATE/n")"
pass=$(cat "$T_STATE/pass") fail=$(cat "$T_STATE/fail") skip=$(cat "$T_STATE/skip")
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
