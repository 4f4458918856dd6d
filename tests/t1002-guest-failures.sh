#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Failing guests are told apart and never hang the harness: a hung job is
# killed by the watchdog (timeout), a kernel panic is reported as a panic,
# cut-short output as truncated, a failing job as job-failed; an
# interrupted runner kills its own QEMU.
. "$(dirname "$0")/lib.sh"
if ! t_prereq guest; then
	t_skip "guest failure tests" "no guest (make kernel qemu initramfs)"
	exit 0
fi

job() { printf '%s\n' "$2" >"$T_TMP/$1.sh"; echo "$T_TMP/$1.sh"; }

qemu_gone() { ! pgrep -f -- "$1" >/dev/null; }

d=$T_TMP/hang
t_boot "$d" -j "$(job hang 'sleep 100000')" -t 20
t_ok "a hanging job is reported as timeout" t_outcome "$d" timeout
t_ok "the timed-out QEMU is gone" qemu_gone "$d/console.log"

d=$T_TMP/panic
t_boot "$d" -j "$(job panic 'echo c >/proc/sysrq-trigger')" -t 120
t_ok "a kernel panic is reported as panic" t_outcome "$d" panic
t_ok "outcome.json names the panic" grep -q '"panic": "Kernel panic - not syncing' "$d/outcome.json"

d=$T_TMP/trunc
t_boot "$d" -j "$(job trunc 'printf "@@SLB-BEGIN hist.txt 5000 1@@\nabc" | slb-frame --raw')" -t 120
t_ok "output cut short is reported as truncated" t_outcome "$d" truncated

d=$T_TMP/fail
t_boot "$d" -j "$(job fail 'echo partial >x.txt; exit 3')" -t 120
t_ok "a job exiting 3 is reported as job-failed" t_outcome "$d" job-failed
t_ok "its exit status 3 is recorded" grep -q '"job_status": 3' "$d/outcome.json"
t_ok "its output still arrived" grep -qx partial "$d/files/x.txt"

d=$T_TMP/int
# A background job ignores SIGINT unless told otherwise; a terminal's Ctrl-C does not.
env --default-signal=INT "$T_ROOT/bench/run-guest.sh" -o "$d" -j "$(job int 'sleep 100000')" -t 300 >/dev/null 2>&1 &
rpid=$!
sleep 8
kill -INT "$rpid"
wait "$rpid"
rc=$?
t_ok "Ctrl-C stops the runner with status 130" test "$rc" = 130
t_ok "the interrupted runner's QEMU is gone" qemu_gone "$d/console.log"
