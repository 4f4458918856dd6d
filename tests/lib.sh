# SPDX-License-Identifier: GPL-2.0-or-later
# Test helpers for tests/tNNNN-*.sh, sourced by each test script (run by
# tests/run-tests.sh). Results are TAP lines numbered across all scripts;
# the counters live in $T_STATE so that run-tests.sh can total them.
#   t_ok DESC CMD...        pass when CMD succeeds; its output is shown on failure
#   t_skip DESC REASON      a counted skip
#   t_prereq NAME           true when prerequisite NAME holds (see below)
#   t_require_guest WHAT    skip (counted) the rest of the script without a guest
#   t_boot DIR ARGS...      bench/target/run-guest.sh -o DIR ARGS...; outcome in DIR
#   t_study_job LOAD NAME [S]  a study job of S s (default 3) with LOAD in $T_TMP/NAME.job (its path)
#   t_failing_scenarios F   a scenario file in F with baseline and broken (panics)
#   t_refuses WORD CMD...   CMD exits 2 with one stderr line naming WORD
#   t_expect_code N CMD...  CMD exits N
#   t_line_count N FILE     FILE has N lines
#   t_interrupt OUT PATTERN SECONDS CMD...   Ctrl-C CMD once OUT shows PATTERN
#   t_jq_calls LOG CMD...   how many jq CMD ran (each call's arguments in LOG)
#   jq ARG...               jq whose -e fails when no value came out (see below)
# Guest boots use $SLB_QEMU, $SLB_INITRD and the cached kernel; SLB_INITRD
# becomes the image's base where it has one (scripts/build-initramfs.sh: the
# image without stress-ng, which no test runs in a guest; 14 of 44 MB, and
# every boot unpacks its image under emulation).
# SLB_TEST_KEEP=1 keeps each script's $T_TMP (its guests' files; the path
# goes to stderr) instead of removing it at the end.
set -u
T_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
: "${T_STATE:?run tests through tests/run-tests.sh}"
T_TMP=$(mktemp -d "${TMPDIR:-/tmp}/slb-test.XXXXXX")
if [ "${SLB_TEST_KEEP:-}" = 1 ]; then
	echo "# $(basename "$0"): keeping $T_TMP" >&2
	trap '' EXIT
else
	trap 'rm -rf "$T_TMP"' EXIT
fi
HOSTBIN=$T_ROOT/build/host
# T_PC: the guest's machine for the checks that start QEMU themselves: the
# firmware paths and the pc machine without default devices (QEMU is built
# with only the guest's: rt-config/qemu-devices.mak), as run-guest.sh has it.
T_PC=(-L /usr/share/seabios -L /usr/share/qemu -machine pc -nodefaults)
if [ -n "${SLB_INITRD:-}" ]; then
	_t_base=$(. "$T_ROOT/scripts/lib.sh" && . "$T_ROOT/scripts/lib-build.sh" && initrd_base "$SLB_INITRD")
	[ ! -f "$_t_base" ] || export SLB_INITRD=$_t_base
fi
GUESTBIN=$T_ROOT/build/guest

# jq whose -e (--exit-status) fails, exit 4, when no value came out at
# all. Debian 12's jq 1.6 exits 0 then, so a check like `jq -e '.n > 0'
# FILE` passed on an empty FILE: the very output a broken tool leaves.
# (Otherwise -e is jq's own: the last value decides.) It stands in for jq
# in the test scripts and what t_ok runs; the product's scripts and `sh -c`
# strings get the real one, and a `! jq -e` would pass on empty input.
# The options are read up to the filter, skipping their values.
jq() {
	local e=0 i=1 a out rc
	while [ "$i" -le $# ]; do
		a=${!i}
		case $a in
		--exit-status) e=1 ;;
		--arg | --argjson | --slurpfile | --rawfile) i=$((i + 2)) ;;
		-L | -f | --from-file | --indent) i=$((i + 1)) ;;
		--args | --jsonargs | --) break ;;
		--*) ;;
		-L* | -f*) ;;
		-[a-zA-Z]*) case $a in *e*) e=1 ;; esac ;;
		*) break ;;     # the filter: options end here
		esac
		i=$((i + 1))
	done
	[ "$e" = 1 ] || { command jq "$@"; return; }
	out=$(mktemp "$T_TMP/jq.XXXXXX")
	command jq "$@" >"$out"
	rc=$?
	if [ "$rc" = 0 ] && [ ! -s "$out" ]; then
		echo "jq -e: no value came out (empty input?)" >&2
		rc=4
	fi
	cat "$out"
	rm -f "$out"
	return "$rc"
}

# _t_count NAME: add one to counter NAME ($T_STATE/NAME) and set _t_n to
# it. No process: a test's counters cost four forks before (3400 tests).
_t_count() {
	local v=0
	read -r v <"$T_STATE/$1" || :
	_t_n=$((v + 1))
	echo "$_t_n" >"$T_STATE/$1"
}

t_ok() {
	local desc=$1 out n
	shift
	_t_count n
	n=$_t_n
	if out=$("$@" 2>&1); then
		echo "ok $n - $desc"
		_t_count pass
	else
		echo "not ok $n - $desc"
		[ -z "$out" ] || printf '%s\n' "$out" | tail -n 20 | sed 's/^/#   /'
		_t_count fail
	fi
}

t_skip() {
	_t_count n
	echo "ok $_t_n - $1 # SKIP $2"
	_t_count skip
}

# Prerequisites: guest (kernel, initramfs and an emulator exist).
t_prereq() {
	case $1 in
	guest) [ -n "${SLB_INITRD:-}" ] && [ -f "$SLB_INITRD" ] &&
		command -v "${SLB_QEMU:-qemu-system-x86_64}" >/dev/null &&
		[ -f "$("$T_ROOT/scripts/build-kernel.sh" --path)/.done" ] ;;
	*) echo "t_prereq: unknown prerequisite $1" >&2; return 1 ;;
	esac
}

# t_require_guest WHAT: unless kernel, initramfs and emulator exist, count
# one skip for WHAT and end the test script.
t_require_guest() {
	t_prereq guest && return 0
	t_skip "$1" "no guest (make kernel qemu initramfs)"
	exit 0
}

# t_expect_code N CMD...: CMD exits with status N (its output shown if not).
t_expect_code() {
	local want=$1 rc out
	shift
	out=$("$@" 2>&1)
	rc=$?
	[ "$rc" = "$want" ] && return 0
	echo "exit $rc, expected $want"
	printf '%s\n' "$out" | tail -n 10
	return 1
}

# t_refuses WORD CMD...: CMD exits 2 (usage error) with exactly one line on
# stderr, naming WORD (the bad value or option).
t_refuses() {
	local word=$1 rc
	shift
	"$@" >"$T_TMP/refuses.out" 2>"$T_TMP/refuses.err"
	rc=$?
	[ "$rc" = 2 ] || { echo "exit $rc, expected 2"; cat "$T_TMP/refuses.err"; return 1; }
	grep -q -- "$word" "$T_TMP/refuses.err" || { echo "stderr does not name '$word':"; cat "$T_TMP/refuses.err"; return 1; }
	t_line_count 1 "$T_TMP/refuses.err"
}

# t_qemu_refuses PATTERN QEMU-ARGS...: the emulator ($SLB_QEMU) exits
# non-zero within 30 s saying PATTERN: its own check of an option, no guest
# booted (-machine none unless the arguments name a machine).
t_qemu_refuses() {
	local pat=$1 out
	shift
	out=$(timeout 30 "${SLB_QEMU:-qemu-system-x86_64}" -machine none -display none "$@" 2>&1 </dev/null) &&
		{ echo "accepted: $*"; return 1; }
	echo "$out" | grep -q -- "$pat" || { echo "said: $out"; return 1; }
}

# t_is_png FILE [MINBYTES]: FILE is a PNG (signature) of at least MINBYTES.
t_is_png() {
	[ "$(head -c 8 "$1" 2>/dev/null | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] &&
		[ "$(stat -c %s "$1")" -ge "${2:-1}" ] && return 0
	echo "$1 is not a PNG of at least ${2:-1} bytes"
	return 1
}

# t_is_svg FILE: FILE is a complete SVG document.
t_is_svg() { grep -q '<svg' "$1" 2>/dev/null && grep -q '</svg>' "$1" || { echo "$1 is not an SVG"; return 1; }; }

# t_jq_calls LOG CMD...: run CMD (output to /dev/null) with a jq first in
# PATH that logs each call's arguments, a line each, to LOG, then runs the
# real one; print how many calls CMD made, and return CMD's status. A jq
# costs some 17 ms of CPU to start, so a script that asks one per field
# costs seconds per study.
t_jq_calls() {
	local log=$1 bin
	shift
	bin=$(mktemp -d "$T_TMP/jqlog.XXXXXX")
	# a line a call, written at once (under PIPE_BUF, O_APPEND: calls at
	# once do not share a line): the arguments' first 300 characters,
	# then the last argument (the file, where there is one)
	printf '#!/bin/sh\nfor a; do z=$a; done\nl=$(printf "%%s" "$*" | tr "\\n" " " | cut -c1-300)\nprintf "%%s ... %%s\\n" "$l" "$(printf "%%s" "${z:-}" | tr "\\n" " " | cut -c1-300)" >>"%s"\nexec %s "$@"\n' "$log" "$(type -P jq)" >"$bin/jq"
	chmod +x "$bin/jq"
	: >"$log"
	PATH=$bin:$PATH "$@" >/dev/null 2>&1
	set -- $?
	wc -l <"$log"
	return "$1"
}

# t_line_count N FILE: FILE has exactly N lines.
t_line_count() {
	local got
	got=$(wc -l <"$2" 2>/dev/null) || { echo "$2 missing"; return 1; }
	[ "$got" = "$1" ] && return 0
	echo "$2 has $got lines, expected $1:"
	head -n 5 "$2"
	return 1
}

# t_interrupt OUT PATTERN SECONDS CMD...: start CMD (output to OUT) as a
# terminal's Ctrl-C would find it (a background job ignores SIGINT unless
# told otherwise), wait until OUT (or the file T_INTERRUPT_WATCH names)
# shows PATTERN (at most 30 s), SECONDS more, send SIGINT; print CMD's
# exit status (137 if it still ran $T_INTERRUPT_GRACE s, default 120, a
# whole number, later: killed, saying so in OUT; only CMD itself, not what
# it started).
t_interrupt() {
	local out=$1 pat=$2 secs=$3 pid watch=${T_INTERRUPT_WATCH:-$1}
	shift 3
	env --default-signal=INT "$@" >"$out" 2>&1 &
	pid=$!
	for _ in $(seq 1 600); do grep -q -- "$pat" "$watch" 2>/dev/null && break; sleep 0.05; done
	sleep "$secs"
	kill -INT "$pid"
	for _ in $(seq 1 $((${T_INTERRUPT_GRACE:-120} * 10))); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	if kill -0 "$pid" 2>/dev/null; then
		echo "t_interrupt: still running ${T_INTERRUPT_GRACE:-120} s after SIGINT: killed" >>"$out"
		kill -KILL "$pid"
	fi
	wait "$pid"
	echo $?
}

# t_boot DIR ARGS...: boot a guest; the outcome word lands in DIR.outcome.
t_boot() {
	local dir=$1
	shift
	"$T_ROOT/bench/target/run-guest.sh" -o "$dir" "$@" >"$dir.outcome" 2>"$dir.stderr"
	true
}

# t_boot_migrate DIR AFTER ARGS...: boot ARGS (as t_boot) in DIR/src with a
# monitor; AFTER seconds after the guest prints SLB-MIGRATE-POINT on its
# console (within 150 s), stop it, migrate it to DIR/state and quit. The
# source does not send its run state, so the destination starts running.
# Returns 0 once QEMU is gone, the state written; else says why and
# returns 1. Resume it with t_boot DIR/dst ARGS --qemu-arg -incoming
# --qemu-arg "exec:cat DIR/state".
t_boot_migrate() {
	local dir=$1 after=$2 pid i
	shift 2
	mkdir -p "$dir" && mkfifo "$dir/mon.in" "$dir/mon.out" || return 1
	t_boot "$dir/src" "$@" --qemu-arg -monitor --qemu-arg "pipe:$dir/mon" \
		--qemu-arg -global --qemu-arg migration.store-global-state=off &
	pid=$!
	timeout 600 cat "$dir/mon.out" >"$dir/mon.log" &
	for i in $(seq 150); do
		grep -q SLB-MIGRATE-POINT "$dir/src/console.log" 2>/dev/null && break
		kill -0 $pid 2>/dev/null || break
		sleep 1
	done
	if ! grep -q SLB-MIGRATE-POINT "$dir/src/console.log" 2>/dev/null; then
		echo "no SLB-MIGRATE-POINT on the source console"
		wait $pid
		cat "$dir/src.stderr" 2>/dev/null
		return 1
	fi
	sleep "$after"
	# HMP migrate (no -d) holds the monitor until done; then quit.
	timeout 60 sh -c 'printf "stop\nmigrate \"exec:cat > %s\"\nquit\n" "$1" >"$2"' \
		sh "$dir/state" "$dir/mon.in" || echo "the source's monitor did not take the commands"
	wait $pid
	if grep -qx ok "$dir/src.outcome" 2>/dev/null; then
		echo "the source finished its job before it was stopped"
		return 1
	fi
	[ -s "$dir/state" ] && return 0
	echo "no migration stream"
	tail -n 5 "$dir/mon.log"
	return 1
}

# t_outcome DIR WORD: the boot in DIR ended with WORD.
t_outcome() {
	local got
	got=$(cat "$1.outcome" 2>/dev/null)
	[ "$got" = "$2" ] && return 0
	echo "outcome '$got', expected '$2'"
	cat "$1.stderr" 2>/dev/null
	tail -n 15 "$1/console.log" 2>/dev/null
	return 1
}

# t_val DIR FILE KEY: KEY's value in the guest's key=value FILE (empty if none).
t_val() { sed -n "s/^$3=//p" "$1/files/$2" 2>/dev/null; }

# t_kv DIR FILE KEY VALUE: the guest's key=value FILE has KEY=VALUE.
t_kv() {
	grep -qx "$3=$4" "$1/files/$2" 2>/dev/null && return 0
	echo "$2: wanted $3=$4, got: $(grep "^$3=" "$1/files/$2" 2>/dev/null || echo "${3} missing")"
	return 1
}

# t_fact DIR KEY VALUE: facts.txt from the guest has KEY=VALUE.
t_fact() { t_kv "$1" facts.txt "$2" "$3"; }

# t_unit PROGRAM: run a C unit test printing "ok - ..." / "not ok - ..." lines.
t_unit() {
	local line rc
	"$@" >"$T_TMP/unit.out" 2>&1
	rc=$?
	while IFS= read -r line; do
		case $line in
		"ok - "*) _t_count n; echo "ok $_t_n - ${line#ok - }"; _t_count pass ;;
		"not ok - "*) _t_count n; echo "not ok $_t_n - ${line#not ok - }"; _t_count fail ;;
		*) echo "#   $line" ;;
		esac
	done <"$T_TMP/unit.out"
	[ "$rc" = 0 ] || t_ok "$1 exited 0" false
}

# t_job NAME [TEXT]: write a guest job script from TEXT (or stdin, as in
# t_job NAME <<'EOF' ... EOF); prints its path. It runs in the guest's
# /tmp/out; /init sends all files left there (and dmesg.txt) back to the
# host.
t_job() {
	{
		echo '. /lib/slb-lib.sh'
		if [ $# -ge 2 ]; then printf '%s\n' "$2"; else cat; fi
	} >"$T_TMP/$1.sh"
	echo "$T_TMP/$1.sh"
}

# t_study_job LOAD NAME [SECONDS]: a study job of SECONDS (default 3;
# bench/guest/jobs/study.sh) with LOAD (scenarios.conf syntax) in
# $T_TMP/NAME.job; prints its path.
t_study_job() {
	(. "$T_ROOT/scripts/lib.sh" && . "$T_ROOT/bench/lib/job.sh" && write_study_job "${3:-3}" 1 1000 0 "$1" "") >"$T_TMP/$2.job"
	echo "$T_TMP/$2.job"
}

# t_failing_scenarios FILE: a scenario file with baseline and "broken",
# whose guest panics at boot (no init): a rep that fails, for the study.
t_failing_scenarios() {
	cat >"$1" <<'CONF'
# name | kernel | load | sysctls | what
baseline | split_lock_detect=off | none | | no load
broken   | rdinit=/nonexistent init=/nonexistent | none | | no init: panics at boot
CONF
}

# t_file_has DIR FILE PATTERN: the guest's FILE matches the grep PATTERN.
t_file_has() {
	grep -q -- "$3" "$1/files/$2" 2>/dev/null && return 0
	echo "$2 lacks '$3':"
	head -n 20 "$1/files/$2" 2>/dev/null || echo "($2 missing)"
	return 1
}

# t_file_lacks DIR FILE PATTERN: the guest's FILE exists and does not match
# the grep PATTERN (a missing file fails: it proves nothing).
t_file_lacks() {
	[ -f "$1/files/$2" ] || { echo "($2 missing)"; return 1; }
	! grep -q -- "$3" "$1/files/$2" && return 0
	echo "$2 has '$3':"
	grep -m 3 -- "$3" "$1/files/$2"
	return 1
}

# t_unit_file FILE: import "ok - ..." / "not ok - ..." lines as tests.
t_unit_file() {
	[ -f "$1" ] || { t_ok "results file $(basename "$1") arrived" false; return; }
	t_unit cat "$1"
}
