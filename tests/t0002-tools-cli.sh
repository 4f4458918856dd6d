#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Command-line contract of the host tools and of slb-frame's host mode:
# --help exits 0, bad usage exits 2, and a frame/unframe round trip through
# files restores the bytes; slb-load runs on the host in its aligned and
# none modes only (a split lock here would bus-lock the machine).
. "$(dirname "$0")/lib.sh"

exit_is() { # exit_is CODE CMD...
	local want=$1 rc
	shift
	"$@" >/dev/null 2>&1
	rc=$?
	[ "$rc" = "$want" ] || { echo "exit $rc, expected $want: $*"; return 1; }
}

for tool in "$HOSTBIN/slb-unframe" "$HOSTBIN/slb-hist" "$GUESTBIN/slb-frame" "$GUESTBIN/slb-load" "$GUESTBIN/slb-msr" "$GUESTBIN/slb-busdb"; do
	t_ok "$(basename "$tool") --help exits 0" exit_is 0 "$tool" --help
	t_ok "$(basename "$tool") --no-such-option exits 2" exit_is 2 "$tool" --no-such-option
done
t_ok "slb-unframe without FILE exits 2" exit_is 2 "$HOSTBIN/slb-unframe"
t_ok "slb-hist without FILE exits 2" exit_is 2 "$HOSTBIN/slb-hist"
t_ok "slb-busdb with an argument exits 2" exit_is 2 "$GUESTBIN/slb-busdb" extra
t_ok "slb-frame --done abc exits 2" exit_is 2 "$GUESTBIN/slb-frame" --stdout --done abc
t_ok "slb-hist on a missing file exits 1" exit_is 1 "$HOSTBIN/slb-hist" "$T_TMP/nope"

head -c 100000 /dev/urandom >"$T_TMP/blob"
printf '000003 000007\n' >"$T_TMP/h.txt"
"$GUESTBIN/slb-frame" --stdout "$T_TMP/blob" "$T_TMP/h.txt:hist.txt" --done 0 >"$T_TMP/out.raw"
roundtrip() {
	"$HOSTBIN/slb-unframe" -o "$T_TMP/files" "$T_TMP/out.raw" &&
		cmp "$T_TMP/blob" "$T_TMP/files/blob" && cmp "$T_TMP/h.txt" "$T_TMP/files/hist.txt"
}
t_ok "100 kB of random bytes and a renamed file survive frame + unframe" roundtrip
head -c 50000 "$T_TMP/out.raw" >"$T_TMP/cut.raw"
t_ok "output cut in half is reported incomplete (exit 1)" exit_is 1 "$HOSTBIN/slb-unframe" "$T_TMP/cut.raw"
t_ok "a bad frame name is refused by slb-frame (exit 1)" exit_is 1 "$GUESTBIN/slb-frame" --stdout "$T_TMP/h.txt:../x"

t_ok "slb-load --mode bogus exits 2" exit_is 2 "$GUESTBIN/slb-load" --mode bogus
t_ok "slb-load --duration 0 exits 2" exit_is 2 "$GUESTBIN/slb-load" --duration 0
t_ok "slb-load --on without --off exits 2" exit_is 2 "$GUESTBIN/slb-load" --on 5
fifo_bad() { local m; m=$("$GUESTBIN/slb-load" --fifo 0 2>&1 >/dev/null); [ $? = 2 ] && echo "$m" | grep -q "fifo '0' is not a whole number from 1 to 99"; }
t_ok "slb-load --fifo 0 exits 2 naming the value and the range" fifo_bad
t_ok "slb-msr read with a bad MSR number exits 2" exit_is 2 "$GUESTBIN/slb-msr" read 0 0xzz
aligned_run() {
	"$GUESTBIN/slb-load" -m aligned -o xadd -s 8 -n 5000 -d 10 --json --stats "$T_TMP/st" >"$T_TMP/load.json" &&
		jq -e '.ops == 5000 and .finished == true and .mode == "aligned" and .size == 8' "$T_TMP/load.json"
}
t_ok "aligned xadd run of 5000 ops reports 5000 ops as JSON" aligned_run
t_ok "--report reads the stats file back" sh -c "out=\$('$GUESTBIN/slb-load' --report '$T_TMP/st' --json) && [ -n \"\$out\" ] && printf '%s\\n' \"\$out\" | jq -e '.ops == 5000'"
rate_run() {
	"$GUESTBIN/slb-load" -m none -r 200 -d 0.5 --json >"$T_TMP/rate.json" &&
		jq -e '.ops >= 50 and .ops <= 101' "$T_TMP/rate.json"
}
t_ok "--rate 200 for 0.5 s does at most 101 ops" rate_run
duty_run() {
	"$GUESTBIN/slb-load" -m none -r 1000 --on 50 --off 150 -d 0.8 --json >"$T_TMP/duty.json" &&
		jq -e '.ops >= 80 and .ops <= 260' "$T_TMP/duty.json"
}
t_ok "--on 50 --off 150 runs about a quarter of the time" duty_run
addr_check() {
	"$GUESTBIN/slb-load" --print-addr -s 8 >"$T_TMP/addr" &&
		grep -q '^split .* crosses 1$' "$T_TMP/addr" && grep -q '^aligned .* crosses 0$' "$T_TMP/addr" &&
		grep -q '^inline .* crosses 0$' "$T_TMP/addr"
}
t_ok "--print-addr: split crosses a line, aligned and inline do not" addr_check

# slb-ratio: A/B over runs, Hodges-Lehmann on logs with its 95 % interval.
# A is B x 0.9 in every run, with spread: the ratio is 0.9, the interval
# holds it and stays narrow.
for i in 1 2 3 4 5 6; do
	b=$(awk -v i="$i" 'BEGIN { printf "%.4f", 10 + i / 10 }')
	echo "patched $(awk -v b="$b" 'BEGIN { printf "%.4f", b * 0.9 }')"
	echo "unpatched $b"
	echo "stock 99"
done >"$T_TMP/ratio.txt"
ratio_ok() { "$HOSTBIN/slb-ratio" --json patched unpatched "$T_TMP/ratio.txt" | jq -e '.ratio == 0.9 and .ci95[0] <= 0.9 and .ci95[1] >= 0.9 and .ci95[1] - .ci95[0] < 0.1 and .runs_a == 6'; }
t_ok "slb-ratio: 6 runs of A = 0.9 B give x0.900 with a narrow interval around it" ratio_ok
t_ok "slb-ratio: the human line" sh -c "'$HOSTBIN/slb-ratio' patched unpatched <'$T_TMP/ratio.txt' | grep -q '^patched/unpatched x0.900 (95 % CI 0.8[0-9]*-0.9[0-9]*; 6 vs 6 runs)$'"
t_ok "slb-ratio: too few runs is exit 1, named" sh -c "printf 'a 1\nb 2\n' | '$HOSTBIN/slb-ratio' a b 2>&1 >/dev/null | grep -q '1 runs of a and 1 of b are too few'; [ \$? = 0 ]"
t_ok "slb-ratio: a value not > 0 is exit 1" t_expect_code 1 sh -c "printf 'a 0\n' | '$HOSTBIN/slb-ratio' a b"
t_ok "slb-ratio: a bad label is a usage error" t_refuses "label" "$HOSTBIN/slb-ratio" 'a"b' c
t_ok "slb-ratio: --help exits 0" "$HOSTBIN/slb-ratio" --help
