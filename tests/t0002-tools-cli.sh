#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Command-line contract of the host tools and of slb-frame's host mode:
# --help exits 0, bad usage exits 2, and a frame/unframe round trip through
# files restores the bytes.
. "$(dirname "$0")/lib.sh"

exit_is() { # exit_is CODE CMD...
	local want=$1 rc
	shift
	"$@" >/dev/null 2>&1
	rc=$?
	[ "$rc" = "$want" ] || { echo "exit $rc, expected $want: $*"; return 1; }
}

for tool in "$HOSTBIN/slb-unframe" "$HOSTBIN/slb-hist" "$GUESTBIN/slb-frame"; do
	t_ok "$(basename "$tool") --help exits 0" exit_is 0 "$tool" --help
	t_ok "$(basename "$tool") --no-such-option exits 2" exit_is 2 "$tool" --no-such-option
done
t_ok "slb-unframe without FILE exits 2" exit_is 2 "$HOSTBIN/slb-unframe"
t_ok "slb-hist without FILE exits 2" exit_is 2 "$HOSTBIN/slb-hist"
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
