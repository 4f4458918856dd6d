#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The documentation stays what a new user can read: README.md short and
# free of history (dates, commits, issue numbers, "rounds" and "before":
# those go to docs/history.md and commit bodies), the docs/ pages it
# indexes present, every relative link in README.md, docs/ and
# patch/README.md pointing at a file of the tree, every make target the
# README names defined, each finding tied to a committed example run, and
# tests/README naming every helper of tests/lib.sh and every lane of
# tests/run-tests.sh.
. "$(dirname "$0")/lib.sh"
cd "$T_ROOT" || exit 1

short() {
	local n
	n=$(wc -l <README.md)
	[ "$n" -le 250 ] || { echo "README.md has $n lines (at most 250: move the rest to docs/)"; return 1; }
}
t_ok "README.md is at most 250 lines" short

# History markers: ISO dates, commit ids (7-40 hex digits with a digit and
# a letter), "issue N", "round", "before". A handful is allowed.
history() {
	local hits n
	hits=$(grep -noE '\b20[0-9]{2}-[0-9]{2}-[0-9]{2}\b|\b[0-9a-f]{7,40}\b|[Ii]ssue [0-9]+|\b[Rr]ounds?\b|\b[Bb]efore\b' README.md |
		grep -vE ':[0-9]{7,}$|:[a-f]{7,}$' | grep -v 'results/example-' || true)
	n=$(printf '%s' "$hits" | grep -c . || true)
	[ "$n" -le 5 ] || { echo "README.md has $n history markers (at most 5; docs/history.md is their place):"; echo "$hits"; return 1; }
}
t_ok "README.md has at most a handful of history markers" history

pages() {
	local p missing=
	for p in usage targets model statistics findings development history; do
		[ -s "docs/$p.md" ] || missing="$missing docs/$p.md"
		grep -q "(docs/$p.md)" README.md || missing="$missing (README's link to docs/$p.md)"
	done
	[ -s tests/README ] || missing="$missing tests/README"
	[ -z "$missing" ] || { echo "missing:$missing"; return 1; }
}
t_ok "docs/ holds its pages and the README indexes them" pages

# links FILE...: every relative Markdown link target (](path) or ](path#x))
# exists, relative to the file's directory.
links() {
	local f t bad=
	for f in "$@"; do
		while IFS= read -r t; do
			case $t in http://* | https://* | mailto:* | '#'*) continue ;; esac
			t=${t%%#*}
			[ -e "$(dirname "$f")/$t" ] || bad="$bad $f:$t"
		done < <(grep -oE '\]\([^) ]+\)' "$f" | sed 's/^](//; s/)$//')
	done
	[ -z "$bad" ] || { echo "links to nothing:$bad"; return 1; }
}
t_ok "every relative link of README.md, docs/ and patch/README.md resolves" links README.md docs/*.md patch/README.md

targets() {
	local t bad=
	for t in $(grep -oE '`make [a-z][a-z-]*' README.md docs/*.md | sed 's/.*`make //' | sort -u); do
		grep -qE "^$t:" Makefile || bad="$bad $t"
	done
	[ -z "$bad" ] || { echo "make targets the documentation names but the Makefile lacks:$bad"; return 1; }
}
t_ok "every make target the documentation names exists" targets

# Each finding (a '## ' section of docs/findings.md) names a committed
# example run, and that run is in the tree.
findings() {
	local bad= sec runs r
	grep -q '^## ' docs/findings.md 2>/dev/null || { echo "docs/findings.md has no finding"; return 1; }
	while IFS= read -r sec; do
		runs=$(awk -v s="$sec" '$0 == s { on = 1; next } /^## / { on = 0 } on' docs/findings.md |
			grep -oE 'results/example-[a-z0-9-]+' | sort -u)
		[ -n "$runs" ] || { bad="$bad [$sec: no run]"; continue; }
		for r in $runs; do [ -d "$r" ] || bad="$bad [$sec: $r missing]"; done
	done < <(grep '^## ' docs/findings.md)
	[ -z "$bad" ] || { echo "findings not tied to a committed run:$bad"; return 1; }
}
t_ok "each finding names a committed example run" findings

helpers() {
	local h bad=
	[ -s tests/README ] || { echo "no tests/README"; return 1; }
	for h in $(grep -oE '^t_[a-z_]+\(\)' tests/lib.sh | tr -d '()'); do
		grep -qw -- "$h" tests/README || bad="$bad $h"
	done
	for h in $(grep -oE '"# t-[a-z]+' tests/run-tests.sh | sed 's/"# //' | sort -u) \
		$(sed -n 's/.*for k in \(serial host light\).*/\1/p' tests/run-tests.sh | head -n 1 | sed 's/[a-z]*/t-&/g'); do
		grep -q -- "# $h" tests/README || bad="$bad '# $h'"
	done
	[ -z "$bad" ] || { echo "tests/README does not describe:$bad"; return 1; }
}
t_ok "tests/README describes every helper of lib.sh and every lane" helpers
