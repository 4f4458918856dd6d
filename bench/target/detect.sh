#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# What a native study target is, read and not assumed (run there: locally
# for TARGET=native, copied over ssh otherwise): key=value lines with the
# guest job's facts (slb_facts: kernel, PREEMPT_RT, CPU model, command
# line) and hostname, online CPUs, the CPU flags split_lock_detect /
# bus_lock_detect / hypervisor, the kernel log's split-lock detection line
# (when dmesg is readable), the split_lock_detect option of the command
# line, the sysctl kernel.split_lock_mitigate, the user id, the load
# average (what else runs there is in the figures), where
# cyclictest, stress-ng and rtla are, and whether tracefs is mounted with
# the timerlat tracer (what --measure timerlat needs; nothing is mounted). bench/target/native.sh derives the mode the
# kernel runs and which scenarios can run from them.
# SLB_CYCLICTEST: the cyclictest binary (default cyclictest from PATH);
# SLB_RTLA: the rtla binary (default rtla from PATH); SLB_CMDLINE: see
# below.
# Exit status: 0.
here=$(cd "$(dirname "$0")" && pwd)
. "${SLB_LIB:-$here/slb-lib.sh}"
flag() { grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -qx "$1" && echo yes || echo no; }
slb_facts
echo "hostname=$(uname -n)"
echo "cpus_online_list=$(cat /sys/devices/system/cpu/online)"
echo "cpu_flags=$(grep -m1 '^flags' /proc/cpuinfo | sed 's/^[^:]*: *//')"
echo "flag_split_lock_detect=$(flag split_lock_detect)"
echo "flag_bus_lock_detect=$(flag bus_lock_detect)"
echo "flag_hypervisor=$(flag hypervisor)"
virt=$(systemd-detect-virt 2>/dev/null) || virt=
echo "virt=${virt:-unknown}"
# The command line's split_lock_detect as a kernel reads it, upstream's
# and this project's series alike: the last split_lock_detect=VALUE, and
# a bare split_lock_detect (fatal with the series, ignored upstream) only
# where there is none; "none" for neither, and for an empty last VALUE
# (no kernel matches it: each keeps its default, bare word or not).
# SLB_CMDLINE: a command line read instead of /proc/cmdline (tests).
sld= bare= valued=
for w in ${SLB_CMDLINE:-$(cat /proc/cmdline)}; do
	case $w in
	split_lock_detect) bare=bare ;;
	split_lock_detect=*) sld=${w#split_lock_detect=} valued=1 ;;
	esac
done
[ -n "$valued" ] || sld=$bare
echo "cmdline_split_lock_detect=${sld:-none}"
if dmesg >/dev/null 2>&1; then
	echo "dmesg_readable=yes"
	echo "dmesg_split_lock=$(dmesg | sed -n 's/.*x86\/split lock detection: //p' | tr -d '\r' | paste -sd '|' -)"
else
	echo "dmesg_readable=no"
	echo "dmesg_split_lock="
fi
echo "split_lock_mitigate=$(cat /proc/sys/kernel/split_lock_mitigate 2>/dev/null || echo absent)"
echo "uid=$(id -u)"
echo "loadavg=$(cat /proc/loadavg)"
ct=${SLB_CYCLICTEST:-cyclictest}
echo "cyclictest=$(command -v "$ct" 2>/dev/null)"
echo "cyclictest_version=$("$ct" --help 2>&1 | sed -n 's/^cyclictest V *//p' | head -n 1)"
echo "stress_ng=$(command -v stress-ng 2>/dev/null)"
echo "rtla=$(command -v "${SLB_RTLA:-rtla}" 2>/dev/null)"
tracefs=
for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
	[ -r "$d/available_tracers" ] && { tracefs=$d; break; }
done
echo "tracefs=$tracefs"
echo "timerlat_tracer=$([ -n "$tracefs" ] && grep -qw timerlat "$tracefs/available_tracers" && echo yes || echo no)"
exit 0
