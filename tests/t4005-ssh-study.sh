#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# TARGET=ssh:... end to end against a real sshd this test starts on
# 127.0.0.1 (a free high port, a throwaway host key and user key in the
# test's directory; killed at the end): the results come back, the
# manifest names the target, the tools copied there are removed; Ctrl-C
# and a killed connection leave no process there (the killed rep fails,
# the matrix goes on, the summary and report count it); an unreachable
# host and a target without cyclictest are refused. The split load is
# rate-limited (2000 split locks per second, 1 s reps).
# t-host: native split locks and cyclictest over ssh on this machine, in real time
. "$(dirname "$0")/lib.sh"
ST=$T_ROOT/bench/study.sh
SSHD=$(command -v sshd || echo /usr/sbin/sshd)
if [ "$(id -u)" != 0 ] || [ ! -x "$SSHD" ] || ! command -v ssh >/dev/null || ! command -v cyclictest >/dev/null ||
	[ ! -x "$GUESTBIN/slb-load" ]; then
	t_skip "ssh study tests" "needs root, sshd and ssh (Debian openssh-server, openssh-client: make deps), cyclictest and make"
	exit 0
fi
k=$T_TMP/ssh
mkdir -p "$k" "$T_TMP/remote"
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
port=$(free_port)
ssh-keygen -q -t ed25519 -N '' -C slb-test-host -f "$k/host_key"
ssh-keygen -q -t ed25519 -N '' -C slb-test-user -f "$k/user_key"
cp "$k/user_key.pub" "$k/authorized_keys"
cat >"$k/sshd_config" <<CONF
Port $port
ListenAddress 127.0.0.1
HostKey $k/host_key
PidFile none
AuthorizedKeysFile $k/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
LogLevel ERROR
CONF
echo "[127.0.0.1]:$port $(cat "$k/host_key.pub")" >"$k/known_hosts"
cat >"$k/ssh_config" <<CONF
Host *
  IdentityFile $k/user_key
  IdentitiesOnly yes
  UserKnownHostsFile $k/known_hosts
  GlobalKnownHostsFile /dev/null
  StrictHostKeyChecking yes
  LogLevel ERROR
CONF
# sshd as root wants its privilege-separation directory (Debian's
# tmpfiles.d makes it at boot; a container may not have it).
[ -d /run/sshd ] || mkdir -m 0755 /run/sshd
"$SSHD" -D -e -f "$k/sshd_config" >"$k/sshd.log" 2>&1 &
sshd_pid=$!
trap 'kill -TERM "$sshd_pid" 2>/dev/null; wait "$sshd_pid" 2>/dev/null; rm -rf "$T_TMP"' EXIT
export SLB_SSH_OPTS="-F $k/ssh_config" SLB_REMOTE_TMPDIR=$T_TMP/remote
up=0
for _ in $(seq 1 50); do ssh $SLB_SSH_OPTS -p "$port" -o BatchMode=yes root@127.0.0.1 true </dev/null 2>/dev/null && { up=1; break; }; sleep 0.2; done
t_ok "the test's sshd accepts the throwaway key on 127.0.0.1:$port" test "$up" = 1
T=ssh:root@127.0.0.1:$port
res=$T_TMP/results
remote_empty() { [ -z "$(ls -A "$T_TMP/remote")" ] || { echo "left there: $(ls -A "$T_TMP/remote")"; return 1; }; }
# no process runs from the remote directory (rep.sh, the job, slb-load)
remote_quiet() { for _ in $(seq 1 100); do pgrep -f "$T_TMP/remote/" >/dev/null || return 0; sleep 0.2; done; pgrep -af "$T_TMP/remote/"; return 1; }
group_gone() {
	[ "$1" != 0 ] || { echo "the rep was not found running there"; return 1; }
	for _ in $(seq 1 100); do pgrep -g "$1" >/dev/null || return 0; sleep 0.2; done; pgrep -a -g "$1"; return 1
}
# rep_pgid NAME: wait until rep NAME (rep1-baseline) runs cyclictest there;
# print the rep's process group (0: it never did)
rep_pgid() {
	local f pg
	for _ in $(seq 1 150); do
		f=$(ls -t "$T_TMP"/remote/*/reps/"$1"/job.pgid 2>/dev/null | head -n 1)
		pg=$(cat "$f" 2>/dev/null)
		[ -n "$pg" ] && pgrep -g "$pg" -x cyclictest >/dev/null && { echo "$pg"; return; }
		sleep 0.2
	done
	echo 0
}

"$ST" --target "$T" --scenarios baseline,split-off,split-on --reps 2 --duration 1 --load-rate 2000 \
	--results "$res" --id s >"$T_TMP/s.out" 2>&1
rc=$?
run=$res/s
t_ok "ssh study: 2 scenarios x 2 reps complete (exit 0)" sh -c "[ $rc = 0 ] || { tail -20 '$T_TMP/s.out'; exit 1; }"
layout() {
	local s r f
	for s in baseline split-off; do
		for r in 1 2; do
			for f in outcome.json rep.info status files/hist.txt files/cyclictest.json files/facts.txt files/load.fate; do
				[ -s "$run/$s/rep$r/$f" ] || { echo "missing $s/rep$r/$f"; return 1; }
			done
			grep -qx outcome=ok "$run/$s/rep$r/rep.info" || { echo "$s rep $r: $(grep outcome= "$run/$s/rep$r/rep.info")"; return 1; }
		done
	done
	jq -e '.mode == "split" and .rate == 2000 and .finished' "$run/split-off/rep2/files/load.json" >/dev/null || return 1
	for f in summary.json stats.json report.md plots/overlay.png; do [ -s "$run/$f" ] || { echo "missing $f"; return 1; }; done
}
t_ok "... the results came back: histograms, cyclictest JSON, the load's report; stats, report, plots" layout
t_ok "... the manifest names the target, its CPU and kernel" jq -e --arg t "$T" --arg h "$(uname -n)" --arg k "$(uname -r)" \
	'.emulated == false and .target.kind == "ssh" and .target.name == $t and .target.hostname == $h and .target.kernel == $k
	 and (.target.cpu | length) > 0 and .host.name == $h' "$run/manifest.json"
t_ok "... split-on skipped with its reason" sh -c "grep -q '^split-on	needs split_lock_detect=fatal' '$run/skipped.txt'"
t_ok "... the tools copied there are removed" remote_empty
t_ok "... and the progress said so" grep -q "removed root@127.0.0.1:$T_TMP/remote/slb-target" "$T_TMP/s.out"

# Ctrl-C mid-rep: exit 130, nothing kept here, nothing left there.
env --default-signal=INT "$ST" --target "$T" --scenarios aligned --reps 1 --duration 30 --load-rate 100 \
	--results "$res" --id int >"$T_TMP/int.out" 2>&1 &
stpid=$!
pg=$(rep_pgid rep1-aligned)
kill -INT "$stpid"
wait "$stpid"
rc=$?
t_ok "an interrupted ssh study exits 130 and keeps nothing" sh -c "[ $rc = 130 ] && [ ! -e '$res/int' ] && ! ls -d '$res'/.incomplete-* 2>/dev/null"
t_ok "... the rep's processes there ended" group_gone "${pg:-0}"
t_ok "... nothing runs from the copied tools" remote_quiet
t_ok "... which are removed" remote_empty

# A killed connection (its sshd process killed mid-rep): that rep fails,
# the matrix goes on, the report counts it; nothing is left there.
"$ST" --target "$T" --scenarios baseline,aligned --reps 2 --duration 3 --load-rate 100 \
	--results "$res" --id k >"$T_TMP/k.out" 2>&1 &
stpid=$!
pg=$(rep_pgid rep1-baseline)
conns=$(pgrep -P "$sshd_pid" | tr '\n' ' ')
[ -z "$conns" ] || kill -KILL $conns
wait "$stpid"
rc=$?
t_ok "a killed connection: the study completes (exit 0)" sh -c "[ $rc = 0 ] || { tail -20 '$T_TMP/k.out'; exit 1; }"
t_ok "... that rep is recorded as connection-lost and the matrix goes on" sh -c "grep -qx outcome=connection-lost '$res/k/baseline/rep1/rep.info' &&
	grep -q \"baseline rep 1: $T run ended 'connection-lost': .* (recorded; the matrix goes on)\" '$T_TMP/k.out'"
t_ok "... the summary counts 1 of 2 baseline reps, 2 of 2 aligned" jq -e '[.scenarios[] | .reps_ok] == [1, 2]' "$res/k/summary.json"
t_ok "... and so does the report" grep -q '^| baseline | 1/2 |' "$res/k/report.md"
t_ok "... the killed rep's processes there ended" group_gone "${pg:-0}"
quiet_and_empty() { remote_quiet && remote_empty; }
t_ok "... nothing runs from the copied tools, which are removed" quiet_and_empty

# The same with a rep of 30 s, killed at its start: the study ends at
# once (no other rep), and the rep's processes there end because the
# runner saw its connection close, not because their 30 s ran out.
"$ST" --target "$T" --scenarios baseline --reps 1 --duration 30 --results "$res" --id k30 >"$T_TMP/k30.out" 2>&1 &
stpid=$!
pg=$(rep_pgid rep1-baseline)
conns=$(pgrep -P "$sshd_pid" | tr '\n' ' ')
[ -z "$conns" ] || kill -KILL $conns
wait "$stpid"
gone_early() { # within 10 s of the study's end, while 20 s of the rep were left
	[ "$1" != 0 ] || { echo "the rep was not found running there"; return 1; }
	for _ in $(seq 1 50); do pgrep -g "$1" >/dev/null || return 0; sleep 0.2; done
	echo "still there: $(pgrep -a -g "$1")"; return 1
}
t_ok "a connection killed mid-rep: the rep's processes there end with it" gone_early "${pg:-0}"
t_ok "... the run records connection-lost" grep -qx outcome=connection-lost "$res/k30/baseline/rep1/rep.info"

# A silent connection (what a dead network looks like: nothing closes):
# the local ssh is stopped mid-rep, so neither data nor the heartbeat
# flows; the runner there ends the rep after 15 s of silence, long before
# its 60 s would have run out.
"$ST" --target "$T" --scenarios baseline --reps 1 --duration 60 --results "$res" --id sil >"$T_TMP/sil.out" 2>&1 &
stpid=$!
pg=$(rep_pgid rep1-baseline)
sshc=$(pgrep -f "^ssh .*reps/rep1-baseline" | head -n 1)
[ -z "$sshc" ] || kill -STOP "$sshc"
silent_gone() { [ "$1" != 0 ] && [ -n "$sshc" ] || { echo "rep ($1) or its ssh ($sshc) not found"; return 1; }; for _ in $(seq 1 150); do pgrep -g "$1" >/dev/null || return 0; sleep 0.2; done; echo "still there: $(pgrep -a -g "$1")"; return 1; }
t_ok "a silent connection: the rep's processes there end (heartbeat lost)" silent_gone "${pg:-0}"
[ -z "$sshc" ] || kill -CONT "$sshc"
wait "$stpid"
t_ok "... the rep is recorded as connection-lost" sh -c "grep -qx outcome=connection-lost '$res/sil/baseline/rep1/rep.info' || { cat '$res/sil/baseline/rep1/rep.info' '$T_TMP/sil.out'; exit 1; }"

# A target that hangs past the rep's deadline (a runner there that
# ignores every signal) is given up here too: outcome timeout.
mkdir -p "$T_TMP/fake"
printf 'exec sh -c %s slb-fake-hang-%s\n' "'trap \"\" HUP TERM INT; while :; do sleep 1; done'" "${T_TMP##*/}" >"$T_TMP/fake/rep.sh"
echo 'SLB_DURATION=1' >"$T_TMP/late.job"
SLB_SSH_GRACE_S=2 "$T_ROOT/bench/target/run-native.sh" -o "$T_TMP/late" -j "$T_TMP/late.job" -t 1 \
	--ssh root@127.0.0.1 --port "$port" --remote-dir "$T_TMP/fake" >"$T_TMP/late.outcome" 2>&1
t_ok "a target hanging past the deadline: given up here, outcome timeout" grep -qx timeout "$T_TMP/late.outcome"
pkill -KILL -f "slb-fake-hang-${T_TMP##*/}"

# Bad input.
dead=$(free_port)
"$ST" --target "ssh:root@127.0.0.1:$dead" --scenarios baseline --reps 1 --duration 1 --results "$res" --id u >"$T_TMP/u.out" 2>&1
rc=$?
t_ok "an unreachable host: exit 1 naming it, nothing kept" sh -c "[ $rc = 1 ] && grep -q \"cannot reach ssh target 'root@127.0.0.1:$dead'\" '$T_TMP/u.out' && [ ! -e '$res/u' ] && ! ls -d '$res'/.incomplete-* 2>/dev/null"
SLB_CYCLICTEST=/nonexistent/cyclictest "$ST" --target "$T" --scenarios baseline --reps 1 --duration 1 --results "$res" --id c >"$T_TMP/c.out" 2>&1
rc=$?
# (after the progress lines of connecting and copying, one line naming it)
t_ok "a target without cyclictest: exit 2, the last line naming it" sh -c "[ $rc = 2 ] &&
	tail -n 1 '$T_TMP/c.out' | grep -q \"cyclictest ('/nonexistent/cyclictest') is not installed on root@127.0.0.1: install Debian rt-tests there\" || { cat '$T_TMP/c.out'; exit 1; }"
t_ok "... and removes what it copied there" remote_empty
