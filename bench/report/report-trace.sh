# SPDX-License-Identifier: GPL-2.0-or-later
# The report's traced wake-up path (reps run with --trace, or a scenario's
# guest option trace): the data first, RUN/trace.json, pooled from each
# rep's files/trace-summary.json (slb-trace); then its wording, a short
# Markdown section: where cyclictest's timer fired, how the task was woken,
# the worst wake-ups and what held them up. Sourced by bench/report/report.sh;
# nothing is printed for a run without traces.

# report_trace_data RUN: RUN/trace.json from the reps' summaries: per
# scenario the reps traced (and why others were not), the counts summed,
# latency means weighted by wake-ups, and the 5 worst wake-ups of all its
# reps. 1 when nothing was traced (no file written).
report_trace_data() {
	local run=$1 s r any=0
	while read -r s; do
		for r in "$run/$s"/rep*/; do
			r=${r%/}
			if [ -s "$r/files/trace-summary.json" ]; then
				jq -c --arg s "$s" --arg r "${r##*/rep}" '{scenario: $s, rep: ($r | tonumber), summary: .}' \
					"$r/files/trace-summary.json" 2>/dev/null && any=1
			elif [ -s "$r/files/trace-skipped.txt" ]; then
				jq -Rsc --arg s "$s" --arg r "${r##*/rep}" '{scenario: $s, rep: ($r | tonumber), skipped: rtrimstr("\n")}' \
					"$r/files/trace-skipped.txt" && any=1
			fi
		done
	done <"$run/scenarios.list" >"$run/trace.reps.tmp"
	if [ "$any" = 0 ]; then
		rm -f "$run/trace.reps.tmp" "$run/trace.json"
		return 1
	fi
	jq -s '
		def sumobj(f): reduce (.[] | f // {} | to_entries[]) as $e ({}; .[$e.key] += $e.value);
		def way(w): [.[] | .summary.latency_us[w] // empty] as $l |
			($l | map(.n) | add // 0) as $n |
			{n: $n,
			 mean: (if $n > 0 then (($l | map(.mean * .n) | add) / $n * 10 | round / 10) else null end),
			 max: ($l | map(.max) | max),
			 fire_delay_mean: (if $n > 0 then (($l | map(.fire_delay_mean * .n) | add) / $n * 10 | round / 10) else null end)};
		{scenarios: (group_by(.scenario) | map(
			(map(select(.summary))) as $t |
			{name: .[0].scenario,
			 reps_traced: ($t | length),
			 skipped: [.[] | select(.skipped) | {rep, reason: .skipped}],
			 wakeups: ($t | map(.summary.wakeups) | add // 0),
			 armed_on: ($t | sumobj(.summary.armed_on)),
			 fired_on: ($t | sumobj(.summary.fired_on)),
			 woken: ($t | sumobj(.summary.woken)),
			 ipi_from: ($t | sumobj(.summary.ipi_from)),
			 remote_interrupting_load: ($t | map(.summary.remote_interrupting_load) | add // 0),
			 remote_in_split_lock: ($t | map(.summary.remote_in_split_lock) | add // 0),
			 latency_us: {local: ($t | way("local")), ipi: ($t | way("ipi")), remote: ($t | way("remote")), all: ($t | way("all"))},
			 worst: ([$t[] | .rep as $r | .summary.worst[] | . + {rep: $r}] | sort_by(-.latency_us) | .[:5])}))}' \
		"$run/trace.reps.tmp" >"$run/trace.json.tmp" && mv "$run/trace.json.tmp" "$run/trace.json"
	local rc=$?
	rm -f "$run/trace.reps.tmp"
	return "$rc"
}

# report_trace RUN: the section, from RUN/trace.json (report_trace_data).
report_trace() {
	local run=$1
	report_trace_data "$run" || return 0
	echo "## Traced wake-up path"
	echo
	echo "Each traced rep followed cyclictest's sleep from its hrtimer_start (the"
	echo "CPU that armed it) through hrtimer_expire_entry (the CPU it fired on, and"
	echo "the task that interrupt stopped there) and sched_wakeup to the"
	echo "sched_switch that ran cyclictest, with the reschedule IPI between CPUs and"
	echo "the irq entries on the way (bench/guest/slb-trace.c; each rep's"
	echo "files/trace-summary.txt and trace-worst.txt hold its raw lines). A wake-up's"
	echo "latency here runs from the timer's expiry to that switch. \"In the split-lock"
	echo "loop\": the expiry interrupted slb-load while it marked its locking loop."
	echo "Each traced event is work on the path it traces: compare traced reps with"
	echo "traced ones."
	echo
	echo "| scenario | reps traced | wake-ups | timer armed on | timer fired on | woken: local / reschedule IPI / remote, no IPI | remote expiries that interrupted the load (in its split-lock loop) | mean latency us: local / IPI | timer fired late, mean us |"
	echo "| --- | ---: | ---: | --- | --- | --- | --- | --- | --- |"
	jq -r 'def cpus(o): [o | to_entries[] | "cpu\(.key) \(.value)"] | join(", ") | if . == "" then "-" else . end;
		def v: if . == null then "-" else tostring end;
		.scenarios[] | "| \(.name) | \(.reps_traced) | \(.wakeups) | \(cpus(.armed_on)) | \(cpus(.fired_on)) | \(.woken.local // 0) / \(.woken.ipi // 0) (from \(cpus(.ipi_from))) / \(.woken.remote // 0) | \(.remote_interrupting_load) (\(.remote_in_split_lock)) | \(.latency_us.local.mean | v) / \(.latency_us.ipi.mean | v) | \(.latency_us.all.fire_delay_mean | v) |"' "$run/trace.json"
	echo
	echo "The worst traced wake-ups of each scenario (all its reps):"
	echo
	echo "| scenario | rep | latency us | timer fired on | fired late us | woken | task interrupted where it fired | irq entries on the way |"
	echo "| --- | ---: | ---: | --- | ---: | --- | --- | --- |"
	jq -r '.scenarios[] | .name as $s | .worst[] |
		"| \($s) | \(.rep) | \(.latency_us) | cpu\(.fired_cpu)\(if .fired_cpu == .cpu then " (its own)" else "" end) | \(.fire_delay_us) | \(if .how == "ipi" then "reschedule IPI from cpu\(.ipi_from)" elif .how == "local" then "local expiry" else "remote, no IPI traced" end) | \(.interrupted | gsub("[|<>]"; ""))\(if .in_split_lock then ", in its split-lock loop" else "" end) | \(if .irqs == "" then "-" else .irqs end) |"' "$run/trace.json"
	jq -r '.scenarios[] | select(.skipped | length > 0) | "\n\(.name): not traced in \(.skipped | length) rep(s): \(.skipped[0].reason)."' "$run/trace.json"
	echo
}
