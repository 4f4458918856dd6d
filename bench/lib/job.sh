# SPDX-License-Identifier: GPL-2.0-or-later
# What a rep's guest sees, for every script that starts one: the study job
# file (bench/guest/jobs/study.sh's variables) and the bus-lock model's
# figures and bench/target/run-guest.sh arguments, from a calibration.
# A run input (scripts/lib.sh run_inputs, as all of bench/lib/).
# Sourced after scripts/lib.sh, never run.

# write_study_job DURATION WARMUP INTERVAL LOAD_RATE LOAD SYSCTLS [LINE...]:
# print a study job file: the prelude that sets the variables of
# bench/guest/jobs/study.sh (seconds, seconds, us, ops/s, scenarios.conf's
# load and sysctls), each LINE (more variables: a target's), then the line
# that sources the job (in the guest /jobs; natively rep.sh sets SLB_JOBS).
write_study_job() {
	printf 'SLB_DURATION=%s SLB_WARMUP=%s SLB_INTERVAL=%s SLB_LOAD_RATE=%s\n' "$1" "$2" "$3" "$4"
	printf 'SLB_LOAD=%q SLB_SYSCTLS=%q\n' "$5" "$6"
	[ $# -le 6 ] || printf '%s\n' "${@:7}"
	echo '. "${SLB_JOBS:-/jobs}/study.sh"'
}

# cal_jq FILE FILTER [JQ-OPTION...]: jq FILTER over FILE, an
# slb-calibrate calibration.json, with the functions of its one reader,
# bench/lib/calibration.jq (cal_check, cal_point, ...).
cal_jq() {
	jq -L "$SLB_ROOT/bench/lib" "${@:3}" "include \"calibration\"; $2" "$1"
}

# cal_resolve VALUE [NAME]: the calibration.json VALUE names, on stdout:
# a committed calibration's short name (CALIBRATION_NAMES in
# rt-config/defaults.conf: amd-epyc-kvm, xeon-trap, ...), a run directory
# that holds a calibration.json, or a file (given back as it is: its
# reader refuses it if it is none). A word that is neither a name nor
# there: usage_error naming it as NAME (default CALIBRATION) and listing
# the names.
cal_resolve() {
	local v=$1 e names=
	[ -n "${CALIBRATION_NAMES:-}" ] || . "$SLB_ROOT/rt-config/defaults.conf"
	for e in ${CALIBRATION_NAMES//,/ }; do
		[ "$v" != "${e%%:*}" ] || { echo "$SLB_ROOT/${e#*:}/calibration.json"; return 0; }
		names="$names ${e%%:*}"
	done
	if [ -d "$v" ] && [ -f "$v/calibration.json" ]; then
		echo "${v%/}/calibration.json"
	elif [ -e "$v" ] || [[ $v == */* || $v == *.json ]]; then
		echo "$v"
	else
		usage_error "${2:-CALIBRATION} '$v' is neither a committed calibration's name nor a file (names:$names; or a calibration.json, or the run directory that holds one)"
	fi
}

# bus_model_load MODEL FILE [COST]: the bus-lock model of a virtual-clock
# guest run into bus_lock_ns, bus_hold_ns, bus_cache_kb and bus_cache_ways.
# MODEL all: every vCPU that meets a split lock waits for all of it
# (bus_lock_ns as set; no hold of its own, no cache); calibrated: the
# figures come from FILE, a native calibration.json (cal_model in
# bench/lib/calibration.jq), scaled to COST ns per split lock when COST is
# given (the hold in proportion, the shield unchanged: cal_model($cost));
# bus_cal_cost_ns and bus_cal_hold_ns then hold the calibration's own
# figures and bus_scaled is 1 if COST differs from its cost (else 0). A
# FILE that is missing, unreadable or gives no model (fields missing,
# values out of range): usage_error naming it.
bus_model_load() {
	local m
	bus_hold_ns=0 bus_cache_kb=0 bus_cache_ways=8 bus_cal_cost_ns= bus_cal_hold_ns= bus_scaled=0
	check_choice BUS_LOCK_MODEL "$1" all calibrated
	[ "$1" = calibrated ] || return 0
	[ -f "$2" ] && [ -r "$2" ] ||
		usage_error "CALIBRATION '$2' is not a readable file (make calibrate writes results/calibrate-<id>/calibration.json)"
	m=$(cal_jq "$2" 'cal_model($cost | if . == "" then null else tonumber end) |
		"\(.cost_ns) \(.hold_ns) \(.cache_kb) \(.cache_ways) \(.calibrated_cost_ns) \(.calibrated_hold_ns) \(if .scaled then 1 else 0 end)"' \
		-r --arg cost "${3:-}" 2>&1) ||
		usage_error "CALIBRATION '$2' gives no bus-lock model: $(echo "$m" | sed -n '$s/^jq: error ([^)]*): //p; $s/^jq: error: //p' | grep . || echo "not JSON")"
	read -r bus_lock_ns bus_hold_ns bus_cache_kb bus_cache_ways bus_cal_cost_ns bus_cal_hold_ns bus_scaled <<<"$m"
}

# bus_model_args: bench/target/run-guest.sh's options for the model loaded.
bus_model_args() {
	echo --bus-lock-ns "$bus_lock_ns" --bus-hold-ns "$bus_hold_ns" --bus-cache-kb "$bus_cache_kb" --bus-cache-ways "$bus_cache_ways"
}
