#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/rep-info.sh on crafted guest results: the load's outcome comes from
# how it ended *and* the kernel's split-lock counters (a load that handles
# SIGBUS and goes on is not "completed"), cyclictest's expected periods and
# interval come from the arguments.
. "$(dirname "$0")/lib.sh"
RI=$T_ROOT/bench/rep-info.sh

# craft NAME FATE TRAPS SIGBUS: a run directory whose load ended FATE.
craft() {
	local d=$T_TMP/$1
	mkdir -p "$d/files"
	echo '{"outcome": "ok"}' >"$d/outcome.json"
	echo "$2" >"$d/files/load.fate"
	[ "$3" = absent ] && echo absent=1 >"$d/files/sld_counters.txt" ||
		printf 'traps=%s\nsigbus=%s\nresumed=0\ncpu0=%s\ncpu1=0\nlast=x\n' "$3" "$4" "$3" >"$d/files/sld_counters.txt"
	"$RI" "$d" 10 1000 >"$d/rep.info"
}
outcome_is() { grep -qx "load_outcome=$2" "$T_TMP/$1/rep.info" && return 0; cat "$T_TMP/$1/rep.info"; return 1; }

craft killed sigbus 1 1
craft caught "exit 3" 1 1
craft throttled completed 40 0
craft clean completed 0 0
craft nocounters completed absent
craft liar sigbus 0 0
craft idle none 0 0
craft dbtrapped completed 0 0
echo '[    1.0] x86/split lock detection: #DB: slb-load/61 took a bus_lock trap at address: 0x402c25' >"$T_TMP/dbtrapped/files/dmesg.txt"
"$RI" "$T_TMP/dbtrapped" 10 1000 >"$T_TMP/dbtrapped/rep.info"
craft broken "exit 1" 0 0
# An offender other than slb-load that handles SIGBUS (say stress-ng, or an
# application's own handler) and runs to its end: what the kernel did
# (SIGBUS sent, the process lived) makes it survived-sigbus, not the
# warn-mode word throttled, whatever its exit status.
craft thirdparty completed 1 1
craft thirdparty-exit1 "exit 1" 1 1
craft thirdparty-sigkill "exit 137" 1 1
craft claims "exit 3" 0 0
# ratelimit on a kernel with the buslock counter: #DB traps counted, none
# in the (rate-limited, maybe lost) kernel log; and a stored run from a
# kernel without that counter.
craft dbcounted completed 0 0
echo buslock=128 >>"$T_TMP/dbcounted/files/sld_counters.txt"
: >"$T_TMP/dbcounted/files/dmesg.txt"
"$RI" "$T_TMP/dbcounted" 10 1000 >"$T_TMP/dbcounted/rep.info"
# Natively: no counters (the job keeps the kernel's, if any, as
# sld_counters.cumulative.txt), the rep's kernel log lines in dmesg.txt.
craft nativewarn completed absent
rm "$T_TMP/nativewarn/files/sld_counters.txt"
echo '[ 9.0] x86/split lock detection: #AC: slb-load/7 took a split_lock trap at address: 0x401a2c' >"$T_TMP/nativewarn/files/dmesg.txt"
"$RI" "$T_TMP/nativewarn" 10 1000 >"$T_TMP/nativewarn/rep.info"
t_ok "killed by SIGBUS, kernel counted the kill: killed" outcome_is killed killed
t_ok "SIGBUS handled (exit 3), kernel counted the trap: survived-sigbus" outcome_is caught survived-sigbus
t_ok "ran to the end but trapped 40 times: throttled" outcome_is throttled throttled
t_ok "ran to the end, no trap: never-trapped" outcome_is clean never-trapped
t_ok "no counters (no detection): never-trapped" outcome_is nocounters never-trapped
t_ok "SIGBUS the kernel did not count: 'killed (unconfirmed)'" outcome_is liar "killed (unconfirmed)"
t_ok "no load: none" outcome_is idle none
t_ok "ran to the end, no #AC but bus-lock #DB traps in the kernel log (ratelimit): throttled" outcome_is dbtrapped throttled
t_ok "any other exit: failed" outcome_is broken failed
t_ok "a third-party offender sent SIGBUS that ran to its end: survived-sigbus (not throttled)" outcome_is thirdparty survived-sigbus
t_ok "... also when it then exits 1 (it lived through the SIGBUS)" outcome_is thirdparty-exit1 survived-sigbus
t_ok "... but not when a signal ended it (exit 137): failed" outcome_is thirdparty-sigkill failed
t_ok "slb-load's exit 3 without a SIGBUS the kernel counted: 'survived-sigbus (unconfirmed)'" outcome_is claims "survived-sigbus (unconfirmed)"
echo '{"outcome": "ok", "seed": 4}' >"$T_TMP/killed/outcome.json"
"$RI" "$T_TMP/killed" 10 1000 >"$T_TMP/killed/rep.info"
t_ok "the rep's seed (outcome.json, virtual clock) is passed on, for pairing reps" grep -qx seed=4 "$T_TMP/killed/rep.info"
t_ok "no seed (wall clock): seed=-1" grep -qx seed=-1 "$T_TMP/clean/rep.info"
t_ok "ran to the end, no #AC, bus-lock #DB traps counted (buslock): throttled" outcome_is dbcounted throttled
t_ok "the kernel's buslock counter is passed on" grep -qx sld_buslock=128 "$T_TMP/dbcounted/rep.info"
t_ok "counters without buslock (older kernel or stored run): sld_buslock=-1" grep -qx sld_buslock=-1 "$T_TMP/throttled/rep.info"
t_ok "no counters at all: sld_buslock=-1" grep -qx sld_buslock=-1 "$T_TMP/nocounters/rep.info"
t_ok "natively, no counters but #AC warnings in the rep's kernel log (warn): throttled" outcome_is nativewarn throttled
t_ok "the kernel's sigbus counter is passed on" grep -qx sld_sigbus=1 "$T_TMP/killed/rep.info"
t_ok "traps per CPU as cpu:count pairs" grep -qx sld_cpu_traps=0:40,1:0 "$T_TMP/throttled/rep.info"
t_ok "no counters: traps per CPU 'none'" grep -qx sld_cpu_traps=none "$T_TMP/nocounters/rep.info"
t_ok "expected periods and interval from the arguments" sh -c "grep -qx ct_expected=10000 '$T_TMP/killed/rep.info' && grep -qx ct_interval_us=1000 '$T_TMP/killed/rep.info'"

# A rep with all three JSON files: each read by one jq, one field that
# fails (thread null: no periods) leaving only its own line empty. A jq
# per field (eight) cost 0.2 s of CPU per rep.
craft full completed 0 0
echo '{"outcome": "timeout", "reason": "no end\nwithin 10 s  ", "seed": 0}' >"$T_TMP/full/outcome.json"
echo '{"ops": 12, "reported_after_ms": 3000}' >"$T_TMP/full/files/load.report.json"
echo '{"thread": null}' >"$T_TMP/full/files/cyclictest.json"
n=$(t_jq_calls "$T_TMP/full.jq" "$RI" "$T_TMP/full" 10 1000)
"$RI" "$T_TMP/full" 10 1000 >"$T_TMP/full/rep.info"
t_ok "rep-info reads each JSON file of a rep with one jq (3 in all)" sh -c "[ '$n' = 3 ] || { echo '$n calls:'; cat '$T_TMP/full.jq'; exit 1; }"
t_ok "... each field as before: a reason on one line, a seed of 0, no periods where threads are null" sh -c "
	grep -qx outcome=timeout '$T_TMP/full/rep.info' && grep -qx 'reason=no end within 10 s' '$T_TMP/full/rep.info' &&
	grep -qx seed=0 '$T_TMP/full/rep.info' && grep -qx load_ops=12 '$T_TMP/full/rep.info' &&
	grep -qx load_end_ms=3000 '$T_TMP/full/rep.info' && grep -qx ct_cycles=-1 '$T_TMP/full/rep.info' &&
	grep -qx ct_expected=0 '$T_TMP/full/rep.info' && grep -qx ct_cpus=unknown '$T_TMP/full/rep.info'"
