# SPDX-License-Identifier: GPL-2.0-or-later
# The report's part for a run that measured with rtla timerlat (study.sh
# --measure timerlat or both): per scenario cyclictest's, timerlat's IRQ
# and thread latency side by side, each comparison's ratios under each,
# and why they differ (which timer each arms, and where it fires).
# Sourced by bench/report/report.sh; report_timerlat prints Markdown, nothing for
# a run of cyclictest alone. It writes RUN/stats-M.json (slb-stats
# --measure M) for each measure but the primary, whose stats.json the
# plots wrote.

# report_timerlat RUN
report_timerlat() {
	local run=$1 measure pm m ms=() l s
	measure=$(run_measure "$run")
	[ "$measure" != cyclictest ] || return 0
	pm=$(primary_measure "$measure")
	read -r -a ms <<<"$(run_measures "$measure")"
	for m in "${ms[@]}"; do
		[ "$m" != "$pm" ] || continue
		stats_tool "$run/stats-$m.json" "$SLB_ROOT/build/host/slb-stats" --measure "$m" \
			--deadline "${DEADLINE_US:-$DEADLINE_US_DEFAULT}" "$run" || return 1
	done
	# stats_file M: the statistics of measure M
	stats_file() { if [ "$1" = "$pm" ]; then echo "$run/stats.json"; else echo "$run/stats-$1.json"; fi; }
	echo "## cyclictest and rtla timerlat"
	echo
	if [ "$measure" = both ]; then
		echo "Each rep measured twice under the same load, one after the other ($(jq -r '.params.duration_s // "?"' "$run/manifest.json") s each):"
		echo "cyclictest first, then \`rtla timerlat hist\`. Never at once: two SCHED_FIFO 95"
		echo "threads woken by two timers on the one measured CPU would delay each"
		echo "other's wake-ups, and each would measure the other."
	else
		echo "Measured by \`rtla timerlat hist\` alone (no cyclictest); the tables and"
		echo "verdicts above use its thread latency."
	fi
	echo "timerlat ran on the measured CPU with cyclictest's period, priority"
	echo "(SCHED_FIFO 95) and 1 us buckets; IRQ latency: from the timer's expiry to"
	echo "its interrupt handler; thread latency: to the timerlat thread running, the"
	echo "wake-up cyclictest measures."
	echo
	echo "| scenario |$(for m in "${ms[@]}"; do printf ' %s p99 | p99.9 | max |' "$m"; done)"
	echo "| --- |$(for m in "${ms[@]}"; do printf ' ---: | ---: | ---: |'; done)"
	while read -r s; do
		printf '| %s |' "$s"
		for m in "${ms[@]}"; do
			jq -r --arg s "$s" 'def v: if . == null then "no data" else . end;
				[.scenarios[] | select(.name == $s)][0] // {} | " \(.p99_us | v) | \(.p999_us | v) | \(.max_us | v) |"' \
				"$(stats_file "$m")" | tr -d '\n'
		done
		echo
	done <"$run/scenarios.list"
	echo
	if jq -e '.comparisons | length > 0' "$(stats_file "$pm")" >/dev/null 2>&1; then
		echo "Each comparison's ratio under each measure (corrected, the median over reps"
		echo "as in the comparisons below; 95 % CI; - where there is none: a control at"
		echo "0 us, or too few samples beyond the quantile):"
		echo
		echo "| ratio |$(for m in "${ms[@]}"; do printf ' %s p99 | p99.9 |' "$m"; done)"
		echo "| --- |$(for m in "${ms[@]}"; do printf ' ---: | ---: |'; done)"
		for l in $(jq -r '.comparisons[].label | @base64' "$(stats_file "$pm")"); do
			l=$(base64 -d <<<"$l")
			printf '| %s |' "$l"
			for m in "${ms[@]}"; do
				jq -r --arg l "$l" 'def ci(a): if a[0] == null then "" else " (\(a[0])-\(a[1]))" end;
					[.comparisons[] | select(.label == $l)][0] // null |
					def r(v; c): if v == null then "-" else "x\(v)\(ci(c))" end;
					if . == null then " no data | no data |" else " \(r(.ratio_p99; .ratio_p99_ci)) | \(r(.ratio_p999; .ratio_p999_ci)) |" end' \
					"$(stats_file "$m")" | tr -d '\n'
			done
			echo
		done
		echo
	fi
	cat <<-'EOF2'
	Why they differ: the timers are not armed alike. rtla's timerlat arms
	its timer on the measured CPU with `HRTIMER_MODE_ABS_PINNED_HARD`: it is
	queued and fires there, whatever the other CPUs do, so its IRQ latency is
	the measured CPU's own timer interrupt and its thread latency adds only a
	wake-up on that CPU. cyclictest sleeps in `clock_nanosleep`, whose hrtimer
	sleeper is armed `HRTIMER_MODE_ABS_HARD`, not pinned (`__hrtimer_init_sleeper`
	adds only `HRTIMER_MODE_HARD` for an RT task). On a `nohz_full` CPU, with
	`kernel.timer_migration` on, `get_target_base` may then queue it on a
	housekeeping CPU (`get_nohz_timer_target`, an `HK_TYPE_TIMER` CPU) when
	that CPU already has an earlier event (`hrtimer_suitable_target`): the
	timer fires there, where the split-lock offender runs, and the wake-up
	reaches the measured CPU as a reschedule IPI (`TTWU_QUEUE` is off on
	PREEMPT_RT). A harm cyclictest shows and timerlat's thread latency does
	not is that migrated-timer path; one both show is on the measured CPU
	itself.
	EOF2
	echo
}
