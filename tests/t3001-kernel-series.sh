#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The kernel series (patch/linux) booted on the emulated split-lock CPU:
# each mode's behaviour towards a user split lock and a kernel one, the
# boot log, the option handling and the debugfs counters.
. "$(dirname "$0")/lib.sh"
t_require_guest "kernel series tests"

# fact DIR FILE KEY VALUE: FILE (key=value lines) says KEY=VALUE.
jqf() { jq -e "$3" "$1/files/$2" || { cat "$1/files/$2"; return 1; }; }
lacks() { ! grep -q -- "$3" "$1/files/$2" || { echo "$2 has '$3'"; return 1; }; }

# 1. Default build (rt-config selects off), no option.
d=$T_TMP/default
t_boot "$d" -t 300 -j "$(t_job default <<'JOB'
slb_run_load load -m split -d 2
slb_sld_counters counters
insmod /lib/modules/slb_ksplit.ko && echo 1 >/sys/kernel/debug/slb_ksplit/trigger
echo $? >ksplit.rc
JOB
)"
t_ok "default build boots" t_outcome "$d" ok
t_ok "default: boot log says disabled" t_file_has "$d" dmesg.txt 'x86/split lock detection: disabled'
t_ok "default: the user split lock load runs to the end" t_file_has "$d" load.fate '^completed$'
t_ok "default: it did split locks" jqf "$d" load.json '.ops > 0'
t_ok "default: counters stay 0" t_kv "$d" counters traps 0
t_ok "default: a kernel split lock returns" t_file_has "$d" ksplit.rc '^0$'
t_ok "default: ... and the module saw it return" t_file_has "$d" dmesg.txt 'slb_ksplit: split lock returned'

# 2. Bare split_lock_detect: the seed's on-switch.
d=$T_TMP/bare
t_boot "$d" -t 300 -a split_lock_detect -j "$(t_job bare <<'JOB'
slb_run_load aligned -m aligned -o xadd -s 8 -d 1
slb_run_load inline -m inline -o bts -d 1
slb_run_load load -m split -d 2
slb_sld_counters counters
tr '\0' ' ' </proc/1/cmdline >init_cmdline
JOB
)"
t_ok "bare split_lock_detect boots" t_outcome "$d" ok
t_ok "bare: boot log says enabled, mode fatal" t_file_has "$d" dmesg.txt 'x86/split lock detection: enabled, mode fatal'
t_ok "bare: the user split lock load dies of SIGBUS" t_file_has "$d" load.fate '^sigbus$'
t_ok "bare: an aligned load runs to the end" t_file_has "$d" aligned.fate '^completed$'
t_ok "bare: an inline (misaligned, one line) load runs to the end" t_file_has "$d" inline.fate '^completed$'
t_ok "bare: ... at its first split lock (0 ops done)" jqf "$d" load.report.json '.ops == 0 and .finished == false'
t_ok "bare: counters count one trap" t_kv "$d" counters traps 1
t_ok "bare: ... and one kill" t_kv "$d" counters killed 1
t_ok "bare: ... the last offender is slb-load" t_file_has "$d" counters '^last=slb-load [0-9]* 0x'
t_ok "bare: the option is not reported unknown" lacks "$d" dmesg.txt 'Unknown kernel command line parameters.*split_lock_detect'
t_ok "bare: the option is not passed to init" lacks "$d" init_cmdline split_lock_detect

# 3. Bare split_lock_detect, kernel split lock: panic.
d=$T_TMP/kpanic
t_boot "$d" -t 300 -a split_lock_detect -j "$(t_job kpanic <<'JOB'
insmod /lib/modules/slb_ksplit.ko && echo 1 >/sys/kernel/debug/slb_ksplit/trigger
JOB
)"
t_ok "bare: a kernel split lock panics the guest" t_outcome "$d" panic
t_ok "bare: panic message names the split lock and the IP" grep -q 'Kernel panic - not syncing: Split lock detected at slb_trigger_write' "$d/console.log"

# 4. warn: the offender lives; mitigation slows it.
d=$T_TMP/warn
t_boot "$d" -t 300 -a split_lock_detect=warn -j "$(t_job warn <<'JOB'
sysctl -w kernel.split_lock_mitigate=1
slb_sld_reset
slb_run_load mit1 -m split -d 3
slb_sld_counters counters1
sysctl -w kernel.split_lock_mitigate=0
slb_sld_reset
slb_run_load mit0 -m split -d 3
slb_sld_counters counters0
JOB
)"
t_ok "warn boots" t_outcome "$d" ok
t_ok "warn: boot log says enabled, mode warn" t_file_has "$d" dmesg.txt 'x86/split lock detection: enabled, mode warn'
t_ok "warn: the offender runs to the end (mitigate=1)" t_file_has "$d" mit1.fate '^completed$'
t_ok "warn: the offender runs to the end (mitigate=0)" t_file_has "$d" mit0.fate '^completed$'
one_warning() { [ "$(grep -c "#AC: slb-load/[0-9]* took a split_lock trap" "$d/files/dmesg.txt")" = 2 ]; }
t_ok "warn: each offender is warned once (2 runs, 2 lines)" one_warning
many_traps() { awk -F= '$1 == "traps" && $2 > 5 { ok = 1 } END { exit !ok }' "$d/files/counters1"; }
t_ok "warn: the counter counts every trap, not just the warning" many_traps
same() { [ "$(sed -n 's/^traps=//p' "$d/files/counters1")" = "$(sed -n 's/^warned=//p' "$d/files/counters1")" ]; }
t_ok "warn: every trap was a warned one" same
slowed() {
	local t1 o1 o0
	t1=$(sed -n 's/^traps=//p' "$d/files/counters1")
	o1=$(jq .ops "$d/files/mit1.json")
	o0=$(jq .ops "$d/files/mit0.json")
	echo "mitigate=1: $t1 traps, $o1 ops; mitigate=0: $o0 ops"
	# 10 ms of sleep per trap bounds the traps in 3 s; the unmitigated run gets more done.
	[ "$t1" -le 330 ] && [ "$o0" -gt "$o1" ]
}
t_ok "warn: split_lock_mitigate=1 slows the offender (<=1 trap per 10 ms, fewer ops than =0)" slowed

# 5. fatal, and a bad value.
d=$T_TMP/fatal
t_boot "$d" -t 300 -a split_lock_detect=fatal -j "$(echo 'slb_run_load load -m split -o xchg -s 8 -d 2' | t_job fatal)"
t_ok "fatal: the offender dies of SIGBUS" t_file_has "$d" load.fate '^sigbus$'
t_ok "fatal: boot log says enabled, mode fatal" t_file_has "$d" dmesg.txt 'x86/split lock detection: enabled, mode fatal'
d=$T_TMP/bogus
t_boot "$d" -t 300 -a split_lock_detect=bogus -j "$(echo 'slb_run_load load -m split -d 1' | t_job bogus)"
t_ok "bogus: boot warns naming the value and what is allowed" t_file_has "$d" dmesg.txt 'unknown option split_lock_detect=bogus (allowed: off, warn, fatal, ratelimit:N'
t_ok "bogus: the default (off) is used" t_file_has "$d" dmesg.txt 'x86/split lock detection: disabled'
t_ok "bogus: the load runs" t_file_has "$d" load.fate '^completed$'

# 6. A CPU without the feature.
d=$T_TMP/nofeature
t_boot "$d" -t 300 -c max -a split_lock_detect -j "$(t_job nofeature <<'JOB'
slb_run_load load -m split -d 1
slb_sld_counters counters
JOB
)"
t_ok "-cpu max with split_lock_detect boots" t_outcome "$d" ok
t_ok "-cpu max: nothing is enabled" lacks "$d" dmesg.txt 'x86/split lock detection: enabled'
t_ok "-cpu max: the load runs" t_file_has "$d" load.fate '^completed$'
t_ok "-cpu max: no counters" t_kv "$d" counters absent 1
