#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Every path of the tree that a script names is there: "$SLB_ROOT/...",
# "$T_ROOT/..." and "$(dirname "$0")/..." in bench/, scripts/, tests/,
# rt-config/ and .ci/, and bench/, scripts/, rt-config/, tests/ and patch/
# paths in the Makefile. A script that is only run by a benchmark or a
# rare path (make bench-model, bench-boot) has no other test that would
# notice it naming a file that moved. A path followed by a glob or a
# variable (a prefix) is not checked.
. "$(dirname "$0")/lib.sh"
cd "$T_ROOT" || exit 1

# named_paths: "FILE:PATH" for every tree path the scripts name, PATH
# relative to the tree.
named_paths() {
	local f m
	grep -rHoE '\$(\{SLB_ROOT\}|SLB_ROOT|T_ROOT)/[A-Za-z0-9_./-]+[*$]?' bench scripts tests rt-config .ci |
		grep -v '[-*$]$' | sed -E 's#:\$\{?(SLB_ROOT|T_ROOT)\}?/#:#'
	grep -rHoE '\$\(dirname "\$0"\)/[A-Za-z0-9_./-]+[*$]?' bench scripts tests rt-config .ci |
		grep -v '[-*$]$' | while IFS=: read -r f m; do
			realpath -m --relative-to=. "$(dirname "$f")/${m#*)/}" | sed "s#^#$f:#"
		done
	grep -HoE '(^|[ "=(])(bench|scripts|rt-config|tests|patch)/[A-Za-z0-9_./-]+[*$%]?' Makefile |
		sed -E 's#:[ "=(]#:#' | grep -v '[-*$%]$'
}
# check_paths: of the "FILE:PATH" lines on stdin, a line per PATH that is
# not there. Not checked: what the build makes (build/, there only after
# the targets a script needs) and a path that leaves the tree
# (../shared/..., beside a checkout on the development machines, absent
# in CI).
check_paths() {
	local fp
	while IFS= read -r fp; do
		case ${fp#*:} in *... | ../* | build | build/*) continue ;; esac
		[ -e "${fp#*:}" ] || printf '%s names %s, which is not in the tree\n' "${fp%%:*}" "${fp#*:}"
	done
}
missing() {
	local out
	out=$(named_paths | sort -u | check_paths)
	[ -z "$out" ] || { echo "$out"; return 1; }
}
t_ok "every tree path the scripts and the Makefile name exists" missing
# skipped PATH / named PATH: what check_paths says of a script naming PATH.
skipped() { [ -z "$(printf 'tests/x.sh:%s\n' "$1" | check_paths)" ]; }
named() { printf 'tests/x.sh:%s\n' "$1" | check_paths | grep -q "^tests/x.sh names $1,"; }
t_ok "... a path outside the tree (../) is not checked" skipped ../nosuch-dir/a.json
t_ok "... nor one the build makes (build/)" skipped build/nosuch
t_ok "... a missing path inside it is named" named bench/nosuch.sh
t_ok "... and the check reads them (more than 100 named paths)" sh -c "[ \$($(declare -f named_paths); named_paths | sort -u | wc -l) -gt 100 ]"
