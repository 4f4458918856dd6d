#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# slb-histcompact (bench/guest, lib/hist.c hist_compact): every rep drops
# the empty buckets of cyclictest's 100000-line histogram with it (an awk
# program did that before and cost each rep about 3 s of host time in the
# emulated guest). It must write exactly what that awk program wrote:
# checked byte for byte on random one- and three-thread histograms, on a
# committed rep's histogram expanded back to 100000 buckets, and on edge
# lines; and refuse bad usage.
. "$(dirname "$0")/lib.sh"
HC=$T_ROOT/build/guest/slb-histcompact
[ -x "$HC" ] || make -s -C "$T_ROOT" all >/dev/null
AWK='/^#/ { print; next } { for (i = 2; i <= NF; i++) if ($i + 0) { print; next } }'

same_as_awk() { # same_as_awk FILE: slb-histcompact FILE = the awk program on FILE
	"$HC" "$1" >"$T_TMP/hc" || return 1
	awk "$AWK" "$1" >"$T_TMP/awk"
	cmp "$T_TMP/awk" "$T_TMP/hc" || { diff "$T_TMP/awk" "$T_TMP/hc" | head -5; return 1; }
}
# random THREADS SEED: a cyclictest-like histogram, 100000 buckets, about
# 1 in 300 of them counted in some thread
random_hist() {
	awk -v t="$1" -v seed="$2" 'BEGIN { srand(seed); print "# Histogram"
		for (b = 0; b < 100000; b++) { l = sprintf("%06d", b)
			for (i = 0; i < t; i++) l = l sprintf(" %06d", rand() < 0.003 ? int(rand() * 500) + 1 : 0)
			print l }
		print "# Total: 000010000"; print "# Histogram Overflows: 00000"; print "# Thread 0:" }'
}
random_hist 1 1 >"$T_TMP/h1"
random_hist 3 2 >"$T_TMP/h3"
t_ok "one thread, 100000 buckets: the awk program's output, byte for byte" same_as_awk "$T_TMP/h1"
t_ok "three threads: a bucket stays when any thread counted in it" same_as_awk "$T_TMP/h3"
t_ok "a real histogram shrinks to its counted buckets" \
	test "$("$HC" "$T_TMP/h1" | wc -l)" -lt 1000

rep=$(ls -d "$T_ROOT"/results/example-2*/split-off/rep1/files 2>/dev/null | head -1)
if [ -n "$rep" ]; then
	# expand the committed (compacted) histogram back to every bucket
	awk 'NR == FNR { if (!/^#/) c[$1 + 0] = $0; next }
		/^# Histogram$/ { print; for (b = 0; b < 100000; b++) print (b in c) ? c[b] : sprintf("%06d 000000", b); next }
		/^#/ { print }' "$rep/hist.txt" "$rep/hist.txt" >"$T_TMP/real"
	t_ok "a committed rep's histogram, expanded to 100000 buckets, compacts back to the awk program's output" same_as_awk "$T_TMP/real"
	t_ok "... which is the committed file" cmp "$T_TMP/hc" "$rep/hist.txt"
else
	t_skip "a committed rep's histogram" "no results/example-*/split-off"
fi

"$HC" "$T_TMP/h3" >"$T_TMP/h3.hc"
printf '# c\n000001\n\n000002 000000 0\n000003 000000 000007\n  # not a comment\n000004 abc\n000005 000001' >"$T_TMP/edge"
t_ok "edge lines (a bucket without counts, blank, indented '#', text, no final newline) as awk" same_as_awk "$T_TMP/edge"
"$HC" "$T_TMP/edge" >"$T_TMP/edge.hc"
if [ -x /bin/busybox ]; then # the awk the guest ran: busybox's
	t_ok "busybox awk wrote the same for the three-thread and edge inputs" sh -c '
		for f in "$2" "$3"; do /bin/busybox awk "$1" "$f" | cmp -s - "$f.hc" || { echo "differs on $f"; exit 1; }; done' sh "$AWK" "$T_TMP/h3" "$T_TMP/edge"
else
	t_skip "busybox awk wrote the same" "busybox-static not installed"
fi
t_ok "standard input without FILE" sh -c '"$1" <"$2" | cmp -s - "$3"' sh "$HC" "$T_TMP/edge" "$T_TMP/awk"
t_ok "two files: usage error" t_expect_code 2 "$HC" "$T_TMP/edge" "$T_TMP/edge"
t_ok "an unknown option: usage error" t_expect_code 2 "$HC" --nope
t_ok "a missing file: error" t_expect_code 1 "$HC" "$T_TMP/missing"
