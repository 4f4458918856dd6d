# SPDX-License-Identifier: GPL-2.0-or-later
# Built-in job: print the guest's facts and run cyclictest for 2 s on the
# isolated vCPU; /init sends facts, histogram and JSON to the host.
. /lib/slb-lib.sh
slb_facts >facts.txt
cat facts.txt
slb_cyclictest "${SLB_SMOKE_SECONDS:-2}"
rc=$?
cat cyclictest.out
exit $rc
