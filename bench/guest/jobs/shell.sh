# SPDX-License-Identifier: GPL-2.0-or-later
# Built-in job: an interactive busybox shell on the console (make shell).
. /lib/slb-lib.sh
slb_facts
echo "slb: interactive shell; 'exit' powers the guest off"
setsid cttyhack sh -l
