#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# C unit tests of the host-side libraries: output framing, histograms, the
# rep-level rank inference (unpaired and paired, medians), the load
# generator's operand placement, and the calibration's victim and cache
# reader, and its wake-up probe.
. "$(dirname "$0")/lib.sh"
t_unit "$HOSTBIN/test-frame"
t_unit "$HOSTBIN/test-hist"
t_unit "$HOSTBIN/test-reptest"
t_unit "$HOSTBIN/test-splitaddr"
t_unit "$HOSTBIN/test-victim"
t_unit "$HOSTBIN/test-wakeup"
