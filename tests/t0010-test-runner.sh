#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/run-tests.sh itself, on fake tNNNN scripts in a temporary directory
# (--dir): with -j 2 the scripts run two at a time, yet the stream is one
# valid TAP stream (numbers 1..N in order, each script's lines whole and in
# the list's order although they finish in another), the plan and the
# closing line count every script; a failing script and one that exits
# non-zero are counted as failed (exit 1); a "# t-serial" script runs with
# nothing beside it (start and end times of every script, in a log), two
# "# t-host" scripts never beside each other but beside the others; -j 1
# gives the same stream; a bad JOBS exits 2 naming the value.
# t-light: its fake scripts sleep
. "$(dirname "$0")/lib.sh"
# The fakes' streams are compared whole: a SLB_TEST_KEEP=1 suite must not
# make them print where they keep their directories.
unset SLB_TEST_KEEP
RT=$T_ROOT/tests/run-tests.sh
d=$T_TMP/fake log=$T_TMP/times.log
mkdir -p "$d"
# fake NAME SECONDS [serial|host]: a script of two passing tests that logs
# when it starts and ends (ns) and sleeps SECONDS between.
fake() {
	{
		case ${3:-} in
		serial) echo "# t-serial: a fake that measures the host" ;;
		host) echo "# t-host: a fake that runs natively in real time" ;;
		light) echo "# t-light: a fake that mostly waits" ;;
		esac
		echo ". '$T_ROOT/tests/lib.sh'"
		echo "echo \"$1 start \$(date +%s%N)\" >>'$log'"
		echo "t_ok '$1 first' true"
		echo "sleep $2"
		echo "t_ok '$1 second' true"
		echo "echo \"$1 end \$(date +%s%N)\" >>'$log'"
	} >"$d/$1.sh"
}
fake t0001-slow 1.2
fake t0002-quick 0.2
fake t0003-quick 0.2
fake t0004-alone 0.4 serial
fake t0005-quick 0.4
cat >"$d/t0006-fails.sh" <<EOF
. '$T_ROOT/tests/lib.sh'
t_ok "fails" false
t_skip "skipped" "a reason"
exit 3
EOF

"$RT" -j 2 --dir "$d" >"$T_TMP/j2.out" 2>"$T_TMP/j2.err"
rc=$?
t_ok "-j 2: a failed test makes the exit status 1" [ "$rc" = 1 ]
# tap_valid FILE N: the TAP lines of FILE are numbered 1..N in order, and
# the plan says 1..N.
tap_valid() {
	awk -v want="$2" '/^(not )?ok [0-9]+/ { n++; num = $0; sub(/^(not )?ok /, "", num); sub(/[^0-9].*/, "", num)
		if (num != n) { print "line " NR ": test " num ", expected " n; bad = 1 } }
		/^1\.\./ { plan = $0 }
		END { if (n != want || plan != "1.." want) { print n " tests, plan " plan ", expected " want; bad = 1 }; exit bad }' "$1"
}
t_ok "-j 2: one TAP stream numbered 1..13, the plan 1..13" tap_valid "$T_TMP/j2.out" 13
t_ok "-j 2: the closing line counts every script" sh -c "tail -n 1 '$T_TMP/j2.out' | grep -qx '10 passed, 2 failed, 1 skipped'"
t_ok "-j 2: the failing test and the non-zero exit are 'not ok'" sh -c "
	grep -qx 'not ok 11 - fails' '$T_TMP/j2.out' && grep -qx 'not ok 13 - t0006-fails.sh exited non-zero' '$T_TMP/j2.out'"
# in_order FILE: each script's lines come whole, scripts in list order.
in_order() {
	local got
	got=$(grep -o '^ok [0-9]* - t000[0-9]' "$1" | sed 's/.* - //' | uniq | tr '\n' ' ')
	[ "$got" = "t0001 t0002 t0003 t0004 t0005 " ] || { echo "scripts printed as: $got"; cat "$1"; return 1; }
}
t_ok "-j 2: scripts printed whole in list order (the first finished last)" in_order "$T_TMP/j2.out"
t_ok "-j 2: nothing on stderr" t_line_count 0 "$T_TMP/j2.err"
# overlap A B: the logged runs of scripts A and B overlap in time.
overlap() {
	awk -v a="$1" -v b="$2" '$2 == "start" { s[$1] = $3 } $2 == "end" { e[$1] = $3 }
		END { exit !(s[a] < e[b] && s[b] < e[a]) }' "$log"
}
t_ok "-j 2: two scripts ran at once (t0001 beside t0002)" overlap t0001-slow t0002-quick
# alone NAME: no other script's run overlaps NAME's.
alone() {
	local o
	for o in t0001-slow t0002-quick t0003-quick t0005-quick; do
		! overlap "$1" "$o" || { echo "$1 ran beside $o:"; cat "$log"; return 1; }
	done
}
t_ok "-j 2: the t-serial script ran with nothing beside it" alone t0004-alone

# Scripts marked t-host: in a lane of their own beside JOBS others, never beside
# each other (listed first, both would start at once without the rule). The
# plain ones last long enough for both t-host scripts and the t-light one
# to run beside them on a busy machine (at 2 s the t-light one started
# after them there: the runner polls, and each start costs a bash).
d0=$d d=$T_TMP/host
mkdir -p "$d"
: >"$log"
fake t0001-host-a 0.6 host
fake t0002-host-b 0.6 host
fake t0003-plain 4
fake t0004-plain 4
fake t0005-light 0.6 light
"$RT" -j 2 --dir "$d" >"$T_TMP/host.out" 2>&1
t_ok "-j 2 with t-host scripts: all pass, one stream in list order" sh -c "[ $? = 0 ] && tail -n 1 '$T_TMP/host.out' | grep -qx '10 passed, 0 failed, 0 skipped' &&
	[ \"\$(grep -o '^ok [0-9]* - t000[0-9]' '$T_TMP/host.out' | sed 's/.* - //' | uniq | tr '\n' ' ')\" = 't0001 t0002 t0003 t0004 t0005 ' ]"
hosts_apart() { ! overlap t0001-host-a t0002-host-b || { cat "$log"; return 1; }; }
t_ok "... the two t-host scripts never ran at once" hosts_apart
beside_plain() { overlap t0001-host-a t0003-plain && overlap t0002-host-b t0003-plain || { cat "$log"; return 1; }; }
t_ok "... and each ran beside the plain ones" beside_plain
own_lane() { overlap t0001-host-a t0003-plain && overlap t0001-host-a t0004-plain && overlap t0003-plain t0004-plain || { cat "$log"; return 1; }; }
t_ok "... in a lane of their own: a t-host script and two others at once at -j 2" own_lane
# Scripts marked t-light (mostly waiting): in that lane after the t-host ones,
# beside the JOBS others (as a plain script it waited for a JOBS slot).
light_lane() {
	! overlap t0005-light t0001-host-a && ! overlap t0005-light t0002-host-b &&
		overlap t0005-light t0003-plain && overlap t0005-light t0004-plain || { cat "$log"; return 1; }
}
t_ok "... a t-light script runs in that lane, after the t-host ones, beside the others" light_lane
d=$d0


: >"$log"
"$RT" -j 1 --dir "$d" >"$T_TMP/j1.out" 2>&1
t_ok "-j 1: exit status 1" [ $? = 1 ]
same_stream() { diff <(grep -v ' took ' "$1") <(grep -v ' took ' "$2"); }
t_ok "-j 1: the same stream as -j 2 (but the times)" same_stream "$T_TMP/j1.out" "$T_TMP/j2.out"
# one_at_a_time: the log has no start before the previous script's end.
one_at_a_time() { awk '$2 == "start" { if (run) exit 1; run = 1 } $2 == "end" { run = 0 }' "$log" || { cat "$log"; return 1; }; }
t_ok "-j 1: one script at a time" one_at_a_time
"$RT" -j 2 --dir "$d" t0002-quick.sh t0001-slow.sh >"$T_TMP/two.out" 2>&1
t_ok "named scripts: run in the order given, numbered 1..4, exit 0" sh -c "[ $? = 0 ] &&
	grep '^ok' '$T_TMP/two.out' | tr '\n' , |
	grep -qx 'ok 1 - t0002-quick first,ok 2 - t0002-quick second,ok 3 - t0001-slow first,ok 4 - t0001-slow second,'"

t_ok "-j x is refused, named" t_refuses "JOBS 'x'" "$RT" -j x --dir "$d"
t_ok "-j 0 is refused, named" t_refuses "JOBS=0" "$RT" -j 0 --dir "$d"
t_ok "-j 17 is refused, named" t_refuses "JOBS=17" "$RT" -j 17 --dir "$d"
t_ok "SLB_TEST_JOBS=two is refused, named" t_refuses "JOBS 'two'" env SLB_TEST_JOBS=two "$RT" --dir "$d"
t_ok "a script that does not exist is refused, named" t_refuses "t0999-none.sh" "$RT" --dir "$d" t0999-none.sh
t_ok "an unknown option is refused, named" t_refuses "'--bogus'" "$RT" --bogus
t_ok "make test JOBS=x stops with exit 2 before building" sh -c "
	make -s -C '$T_ROOT' test JOBS=x >'$T_TMP/make.out' 2>&1; [ \$? = 2 ] &&
	grep -q \"JOBS 'x' is not a whole number\" '$T_TMP/make.out' && ! grep -q CC '$T_TMP/make.out'"

# Ctrl-C with -j 2: the runner exits 130 and ends the scripts it started
# (each in a process group of its own), with what they started.
i=$T_TMP/int
mkdir -p "$i"
for n in 1 2; do
	printf '. %q\necho $$ >%q\nsleep 300 &\necho $! >%q\nwait\n' "$T_ROOT/tests/lib.sh" "$i/t000$n.pid" "$i/t000$n.child" >"$i/t000$n-long.sh"
done
rc=$(t_interrupt "$T_TMP/int.out" 'TAP version' 2 "$RT" -j 2 --dir "$i")
t_ok "Ctrl-C: the runner exits 130" [ "$rc" = 130 ]
# gone: the processes whose pids the scripts wrote have ended (within 5 s).
gone() {
	local f
	for _ in $(seq 1 50); do
		for f in "$i"/*.pid "$i"/*.child; do kill -0 "$(cat "$f")" 2>/dev/null && { sleep 0.1; continue 2; }; done
		return 0
	done
	echo "still running: $(for f in "$i"/*.pid "$i"/*.child; do kill -0 "$(cat "$f")" 2>/dev/null && echo "${f##*/}"; done)"
	return 1
}
t_ok "Ctrl-C: both running scripts and their children ended" gone

# The others start longest first by the last run's times (SLB_TEST_TIMES):
# t0005-quick, said to have taken longest, has ended before t0002-quick,
# which it follows in the list, starts (in list order t0002 ends first);
# the run writes its times.
: >"$log"
printf '%s\n' 't0001-slow.sh 3' 't0002-quick.sh 1' 't0003-quick.sh 1' 't0005-quick.sh 9' 't0006-fails.sh 1' >"$T_TMP/times"
SLB_TEST_TIMES=$T_TMP/times "$RT" -j 2 --dir "$d" >"$T_TMP/lpt.out" 2>&1
at() { sed -n "s/^$1 $2 //p" "$log"; }
longest_first() { [ "$(at t0005-quick end)" -lt "$(at t0002-quick start)" ] || { cat "$log"; return 1; }; }
t_ok "-j 2: the others start longest first by the last run's times" longest_first
t_ok "... the stream keeps the list order" same_stream "$T_TMP/j2.out" "$T_TMP/lpt.out"
t_ok "... and the run leaves its own times" grep -qx 't0004-alone.sh [0-9]*' "$T_TMP/times"
SLB_TEST_TIMES=$T_TMP/first-times "$RT" -j 2 --dir "$d" >/dev/null 2>&1
t_ok "... also the first run, with no times yet" grep -qx 't0001-slow.sh [0-9]*' "$T_TMP/first-times"

# lib.sh keeps a script's counters without starting a process (read, not
# cat, and no subshell per test: four forks a test, 3400 tests): a script
# whose tests run with PATH empty counts them all.
p=$T_TMP/nopath
mkdir -p "$p"
printf '%s\n' ". '$T_ROOT/tests/lib.sh'" 'PATH=' "t_ok one true" "t_ok two true" "t_skip three why" "t_ok four false" "PATH=$PATH" >"$p/t0001-nopath.sh"
"$RT" --dir "$p" >"$T_TMP/nopath.out" 2>&1
t_ok "lib.sh counts with PATH empty: 4 tests, 2 passed, 1 failed, 1 skipped, numbered 1 to 4" sh -c "
	grep -qx '2 passed, 1 failed, 1 skipped' '$T_TMP/nopath.out' && grep -qx '1..4' '$T_TMP/nopath.out' &&
	grep -qx 'not ok 4 - four' '$T_TMP/nopath.out' || { cat '$T_TMP/nopath.out'; exit 1; }"
