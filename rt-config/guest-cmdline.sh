#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Print the guest kernel command line for a VCPUS-vCPU guest whose last
# NISOL vCPUs are isolated for measurement (cyclictest); the rest do
# housekeeping (IRQs, RCU callbacks, the load generator).
#
#   guest-cmdline.sh VCPUS [NISOL [ISOLATION]]    (NISOL defaults to 1)
#
# ISOLATION: which options isolate them, all (default: isolcpus,
# nohz_full, rcu_nocbs and irqaffinity), none (a plain command line: the
# measured vCPUs are then only the study's choice, not the kernel's), or
# some of those words joined by + or , (as a native machine has them:
# make validate-study). isolcpus is isolcpus=domain,managed_irq, with
# its nohz flag when nohz_full is there too; isolcpus_nohz is
# isolcpus=nohz,domain,managed_irq without nohz_full= (the tick stopped,
# the timer, workqueue and RCU housekeeping not moved: only nohz_full
# makes timers armed there go to a housekeeping CPU); nohz_full without
# isolcpus is nohz_full with no domain isolation.
set -eu
vcpus=${1:-}
nisol=${2:-1}
isolation=${3:-all}
case $vcpus in '' | *[!0-9]*) echo "guest-cmdline.sh: VCPUS '$vcpus' is not a number (allowed: 2 to 8)" >&2; exit 2 ;; esac
case $nisol in '' | *[!0-9]*) echo "guest-cmdline.sh: NISOL '$nisol' is not a number" >&2; exit 2 ;; esac
if [ "$vcpus" -lt 2 ] || [ "$vcpus" -gt 8 ]; then
	echo "guest-cmdline.sh: VCPUS=$vcpus: need 2 to 8 vCPUs (one to isolate, one for housekeeping; the kernel has NR_CPUS=8)" >&2
	exit 2
fi
if [ "$nisol" -lt 1 ] || [ "$nisol" -ge "$vcpus" ]; then
	echo "guest-cmdline.sh: NISOL=$nisol: need 1 to $((vcpus - 1)) isolated vCPUs with VCPUS=$vcpus" >&2
	exit 2
fi
first=$((vcpus - nisol))
last=$((vcpus - 1))
iso=$first
[ "$first" -eq "$last" ] || iso=$first-$last
hk=0
[ "$first" -eq 1 ] || hk=0-$((first - 1))
# console on ttyS0; panic=-1 makes a panicking guest reboot at once, and
# QEMU's -no-reboot turns that into an exit the host runner can see.
# idle=halt: Linux would idle in MWAIT, which TCG runs as PAUSE on an SMP
# guest, so an idle vCPU would spin (burning a host thread in the wall
# mode, whole quanta in the virtual one) instead of sleeping.
# retain_initrd: the unpacked image's memory (44 MB for the study's) is
# not poisoned and freed, which cost host time in every boot under
# emulation; the guest has 512 MB and needs a fraction.
[ "$isolation" != all ] || isolation=isolcpus,nohz_full,rcu_nocbs,irqaffinity
[ "$isolation" != none ] || isolation=
# isolcpus' nohz flag stops the tick as nohz_full does: only with it.
nohz=
case ",$(echo "$isolation" | tr '+' ','),"  in *,nohz_full,*) nohz=nohz, ;; esac
opts=
for w in $(echo "$isolation" | tr '+,' '  '); do
	case $w in
	isolcpus) opts="$opts isolcpus=${nohz}domain,managed_irq,$iso" ;;
	isolcpus_nohz) opts="$opts isolcpus=nohz,domain,managed_irq,$iso" ;;
	nohz_full) opts="$opts nohz_full=$iso" ;;
	rcu_nocbs) opts="$opts rcu_nocbs=$iso" ;;
	irqaffinity) opts="$opts irqaffinity=$hk" ;;
	*)
		echo "guest-cmdline.sh: ISOLATION '$3': '$w' is not allowed (allowed: all, none, or isolcpus, isolcpus_nohz, nohz_full, rcu_nocbs, irqaffinity joined by + or ,)" >&2
		exit 2 ;;
	esac
done
echo "console=ttyS0 panic=-1 tsc=reliable idle=halt retain_initrd$opts"
