#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# C unit tests of the host-side libraries: output framing, histograms, and
# the rep-level rank tests (unpaired and paired), the load generator's
# operand placement.
. "$(dirname "$0")/lib.sh"
t_unit "$HOSTBIN/test-frame"
t_unit "$HOSTBIN/test-hist"
t_unit "$HOSTBIN/test-reptest"
t_unit "$HOSTBIN/test-splitaddr"
