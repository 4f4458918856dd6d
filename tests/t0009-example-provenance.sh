#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The README's figures come from a committed run of the tree that ships
# them: the example run the README names records, in its manifest, the
# digest of the files that decide what a guest run measures
# (run_inputs_digest in scripts/lib.sh), and it equals this tree's.
. "$(dirname "$0")/lib.sh"
. "$T_ROOT/scripts/lib.sh"
ex=$(grep -o 'results/example-[0-9]\{8\}-[0-9]\{6\}/' "$T_ROOT/README.md" | head -n 1)
t_ok "the README names its example run ($ex)" test -n "$ex"
t_ok "that run is committed, with a manifest" test -s "$T_ROOT/$ex/manifest.json"
same_inputs() {
	local got want
	got=$(jq -r '.inputs_digest // "none"' "$T_ROOT/$ex/manifest.json")
	want=$(run_inputs_digest)
	[ "$got" = "$want" ] && return 0
	echo "the example run's inputs digest is $got, this tree's is $want: regenerate it (make bench) and the README's figures"
	return 1
}
t_ok "the example run was made from this tree's run inputs" same_inputs
# The digest moves with any of those files, and only with them (on a copy).
changed() {
	local r=$T_TMP/root a b c
	mkdir -p "$r"
	(cd "$T_ROOT" && run_inputs | tar -cf - -T -) | tar -xf - -C "$r"
	a=$(SLB_ROOT=$r run_inputs_digest)
	[ "$a" = "$(run_inputs_digest)" ] || { echo "a copy of the inputs digests differently"; return 1; }
	echo "# touch" >>"$r/rt-config/defaults.conf"
	b=$(SLB_ROOT=$r run_inputs_digest)
	echo "notes" >"$r/patch/NOTES.md"
	c=$(SLB_ROOT=$r run_inputs_digest)
	[ "$a" != "$b" ] && [ "$b" = "$c" ]
}
t_ok "a change to a run input changes the digest, a Markdown note does not" changed
# What writes a rep's job (write_study_job, bench/lib/job.sh) and gives
# its guest its arguments and seed (bench/target/guest.sh) are inputs; the
# shared helpers that no guest sees (scripts/lib.sh, scripts/lib-run.sh,
# bench/cost/lib.sh: run directories, reports, cost benchmarks) are not, so
# that an edit there leaves the committed example standing.
in_inputs() { run_inputs | grep -qx "$1" || { echo "$1 is not among the run inputs"; return 1; }; }
t_ok "the writer of a rep's job is a run input (bench/lib/job.sh)" in_inputs bench/lib/job.sh
t_ok "how a series is applied is a run input (scripts/lib-build.sh)" in_inputs scripts/lib-build.sh
t_ok "the guest's emulator run is a run input (bench/target/run-guest.sh)" in_inputs bench/target/run-guest.sh
not_in_inputs() { ! run_inputs | grep -qx "$1" || { echo "$1 is among the run inputs"; return 1; }; }
for f in scripts/lib.sh scripts/lib-run.sh bench/cost/lib.sh bench/report/report.sh; do
	t_ok "what no guest sees is not a run input ($f)" not_in_inputs "$f"
done
t_ok "the guest's arguments and seed are a run input (bench/target/guest.sh)" in_inputs bench/target/guest.sh
