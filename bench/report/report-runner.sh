# SPDX-License-Identifier: GPL-2.0-or-later
# The report's parts that say who dispatched the reps (manifest .runner,
# RUNNER=slurm: bench/runner/slurm.sh): the job ids, the nodes, each task
# Slurm ended without a record (its state and reason: that rep counts as
# failed), and a warning when a wall-clock run spread over nodes. Sourced
# by bench/report/report.sh; each function prints Markdown, nothing for a run of
# the local runner. MF is the manifest (or {}).

# report_runner_warning MF: the wall clock on Slurm: nodes differ.
report_runner_warning() {
	jq -r 'select(.runner.kind == "slurm" and .params.clock == "wall") |
		"**Warning: wall clock on Slurm.** The reps ran on \([.runner.reps[].node] | unique | length) node(s) (\([.runner.reps[].node] | unique | join(", "))), each with its own speed and load in its figures: scenarios compare only as far as those nodes are alike (the virtual clock does not depend on the node).\n"' "$1"
}

# report_runner_setup MF: setup lines of a Slurm run.
report_runner_setup() {
	jq -r 'select(.runner.kind == "slurm") | .runner as $r |
		"- runner: Slurm, job array \($r.array_job) (one task per rep, \(.params.jobs) at a time) on \([$r.reps[].node | select(. != "")] | unique | join(", ")), finished by job \($r.finish_job)\(if $r.sbatch_opts != "" then "; sbatch options `\($r.sbatch_opts)`" else "" end)",
		([$r.reps[] | select(.state != "COMPLETED")] as $f | if ($f | length) > 0
		 then "- Slurm tasks that ended without a result (counted as failed reps): \([$f[] | "\(.scenario) rep \(.rep) (task \(.task)\(if .node != "" then " on \(.node)" else "" end)): \(.state), reason \(.reason), exit \(.exit_code)"] | join("; "))"
		 else empty end)' "$1"
}
