#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Failing guests are told apart and never hang the harness: a hung job is
# killed by the watchdog (timeout), a kernel panic is reported as a panic,
# cut-short output as truncated, a failing job as job-failed; an
# interrupted runner kills its own QEMU.
# t-light: its guests mostly wait in host time (a watchdog, a Ctrl-C)
. "$(dirname "$0")/lib.sh"
t_require_guest "guest failure tests"

qemu_gone() { ! pgrep -f -- "$1" >/dev/null; }

# The two guests that wait in host time boot in the wall clock mode, where
# a sleeping guest leaves the host idle: in the virtual mode QEMU runs its
# timers through guest time as fast as it can, a CPU busy all the wait.
# The hanging guest waits out its watchdog beside the others.
t_boot "$T_TMP/hang" -j "$(t_job hang 'sleep 100000')" -t 20 --clock wall &
hang=$!

d=$T_TMP/panic
t_boot "$d" -j "$(t_job panic 'echo c >/proc/sysrq-trigger')" -t 120
t_ok "a kernel panic is reported as panic" t_outcome "$d" panic
t_ok "outcome.json names the panic" grep -q '"panic": "Kernel panic - not syncing' "$d/outcome.json"

d=$T_TMP/trunc
t_boot "$d" -j "$(t_job trunc 'printf "@@SLB-BEGIN hist.txt 5000 1@@\nabc" | slb-frame --raw')" -t 120
t_ok "output cut short is reported as truncated" t_outcome "$d" truncated

d=$T_TMP/fail
t_boot "$d" -j "$(t_job fail 'echo partial >x.txt; exit 3')" -t 120
t_ok "a job exiting 3 is reported as job-failed" t_outcome "$d" job-failed
t_ok "its exit status 3 is recorded" grep -q '"job_status": 3' "$d/outcome.json"
t_ok "its output still arrived" grep -qx partial "$d/files/x.txt"

d=$T_TMP/int
# Ctrl-C once the guest runs its job (before: 8 s after a 30 s wait for
# output the runner prints only at the end)
rc=$(T_INTERRUPT_WATCH=$d/console.log t_interrupt "$T_TMP/int.out" 'slb-init: running job' 0.5 \
	"$T_ROOT/bench/target/run-guest.sh" -o "$d" -j "$(t_job int 'sleep 100000')" -t 300 --clock wall)
t_ok "Ctrl-C stops the runner with status 130" test "$rc" = 130
t_ok "the interrupted runner's QEMU is gone" qemu_gone "$d/console.log"

wait "$hang"
d=$T_TMP/hang
t_ok "a hanging job is reported as timeout" t_outcome "$d" timeout
t_ok "the timed-out QEMU is gone" qemu_gone "$d/console.log"
