#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Host side of one native rep, the counterpart of bench/target/run-guest.sh for
# TARGET=native and TARGET=ssh:...: runs bench/target/rep.sh with a study
# job on this machine's running kernel, or over ssh in the directory the
# study copied the tools to (--remote-dir), brings the rep's files back and
# classifies the run. Ctrl-C (SIGINT/SIGTERM/SIGHUP) ends the rep there
# too: locally through rep.sh's traps; over ssh by closing the
# connection's standard input, which rep.sh watches (and a lost connection
# ends it the same way: sshd closes it, or on a dead network the byte this
# script sends every 2 s stops arriving).
#
# Outcomes (outcome.json "outcome", and the one line printed on stdout):
#   ok               the job ran to the end with exit status 0
#   job-failed       the job exited non-zero (cyclictest failed or killed)
#   timeout          the deadline (-t) passed; the rep's processes ended
#   connection-lost  ssh lost the target mid-rep (exit 255), or the runner
#                    there ended the rep when the connection went silent
#   truncated        the results did not arrive whole
#   runner-failed    rep.sh itself could not run
# Exit status: 0 for ok, 1 for any other outcome, 2 for a usage error,
# 130 when interrupted.
set -uo pipefail
SLB_PROG=run-native
. "$(dirname "$0")/../../scripts/lib.sh"

usage() {
	cat <<USAGE
Usage: run-native.sh -o DIR -j JOBFILE -t TIMEOUT [--ssh DEST [--port N] --remote-dir DIR]
Run one study job on the running kernel (here, or over ssh); write
DIR/{files/,outcome.json,status,job.log}.

  -o, --outdir DIR      results directory; must not exist yet
  -j, --job FILE        job script (bench/guest/jobs/study.sh's variables and
                        a line sourcing "\$SLB_JOBS/study.sh")
  -t, --timeout S       deadline of the rep, 1 to 86400
      --ssh DEST        run on [user@]host over ssh (options: \$SLB_SSH_OPTS)
      --port N          ssh port
      --remote-dir DIR  where the study copied the tools on DEST
      --json            print outcome.json instead of the outcome word
  -h, --help            this text
USAGE
}

outdir= job= timeout= dest= port= rdir= json=0
opts=$(getopt -n run-native -o o:j:t:h -l outdir:,job:,timeout:,ssh:,port:,remote-dir:,json,help -- "$@") || exit 2
eval set -- "$opts"
while true; do
	case $1 in
	-o | --outdir) outdir=$2; shift 2 ;;
	-j | --job) job=$2; shift 2 ;;
	-t | --timeout) timeout=$2; shift 2 ;;
	--ssh) dest=$2; shift 2 ;;
	--port) port=$2; shift 2 ;;
	--remote-dir) rdir=$2; shift 2 ;;
	--json) json=1; shift ;;
	-h | --help) usage; exit 0 ;;
	--) shift; break ;;
	esac
done
[ $# -eq 0 ] || usage_error "unexpected argument '$1' (see --help)"
[ -n "$outdir" ] || usage_error "--outdir is required (see --help)"
[ ! -e "$outdir" ] || usage_error "--outdir '$outdir' exists; refusing to overwrite earlier results"
[ -f "$job" ] || usage_error "--job '$job' is not a file"
check_number --timeout "$timeout" 1 86400
[ -z "$dest" ] || [ -n "$rdir" ] || usage_error "--ssh needs --remote-dir (the study copies the tools there)"
mkdir -p "$outdir" || die "cannot create $outdir"
start=$(date +%s.%N)
pid= sshrc=
hold=

interrupted() {
	if [ -n "$dest" ]; then
		# Closing ssh's standard input ends the rep over there (rep.sh
		# watches it); ssh itself ends when the remote side has.
		[ -z "$hold" ] || exec 3>&-
		[ -z "$pid" ] || wait_timeout "$pid" 10 || kill -TERM "$pid" 2>/dev/null
	elif [ -n "$pid" ]; then
		kill -TERM "$pid" 2>/dev/null
		wait_timeout "$pid" 10 || kill -KILL "$pid" 2>/dev/null
	fi
	[ -z "$hold" ] || rm -f "$hold"
	say "interrupted; the rep's processes ended"
	exit 130
}
trap interrupted INT TERM HUP

if [ -z "$dest" ]; then
	PATH=$SLB_ROOT/build/guest:$PATH SLB_LIB=$SLB_ROOT/bench/guest/slb-lib.sh SLB_JOBS=$SLB_ROOT/bench/guest/jobs \
		sh "$SLB_ROOT/bench/target/rep.sh" "$outdir" "$timeout" "$(cd "$(dirname "$job")" && pwd)/$(basename "$job")" \
		</dev/null >/dev/null 2>"$outdir/runner.err" &
	pid=$!
	wait "$pid"
	pid=
else
	# The job travels inside the command, single-quoted for sh there; the
	# results come back as a tar stream on ssh's standard output.
	name=$(basename "$outdir")-$(basename "$(dirname "$outdir")")
	q=$(sed "s/'/'\\\\''/g" "$job")
	cmd="d='$rdir/reps/$name'; mkdir -p \"\$d\" && printf '%s\\n' '$q' >\"\$d.job\" &&
sh '$rdir/rep.sh' \"\$d\" '$timeout' \"\$d.job\" --watch-stdin >/dev/null 2>\"\$d/runner.err\"
tar -C \"\$d\" -cf - .; rm -rf \"\$d\" \"\$d.job\""
	hold=$outdir.hold
	mkfifo "$hold" || die "cannot make $hold"
	# shellcheck disable=SC2086 # SLB_SSH_OPTS is a list of options
	ssh -o BatchMode=yes -o ConnectTimeout=10 -o ServerAliveInterval=5 -o ServerAliveCountMax=3 \
		${port:+-p "$port"} ${SLB_SSH_OPTS:-} "$dest" "$cmd" <"$hold" >"$outdir.tar" 2>"$outdir/ssh.stderr" &
	pid=$!
	exec 3>"$hold"
	# The heartbeat; a write after ssh ended must not kill this script.
	trap '' PIPE
	# Past the deadline there (plus SLB_SSH_GRACE_S, default 30 s, to hand
	# the results over) ssh itself hangs: end it here too.
	local_end=$(($(date +%s) + timeout + ${SLB_SSH_GRACE_S:-30})) late=0
	while ! wait_timeout "$pid" 2; do
		printf . >&3 2>/dev/null
		[ "$(date +%s)" -lt "$local_end" ] || { late=1; exec 3>&-; wait_timeout "$pid" 5 || kill -TERM "$pid"; }
	done
	wait "$pid"
	sshrc=$?
	pid=
	exec 3>&-
	rm -f "$hold"
	hold=
	tar -C "$outdir" -xf "$outdir.tar" 2>"$outdir/tar.err" && rm -f "$outdir/tar.err"
	rm -f "$outdir.tar"
fi
elapsed=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }')
[ -s "$outdir/runner.err" ] || rm -f "$outdir/runner.err"

job_status=$(sed -n 's/^job_status=//p' "$outdir/status" 2>/dev/null)
timed_out=$(sed -n 's/^timed_out=//p' "$outdir/status" 2>/dev/null)
interrupted=$(sed -n 's/^interrupted=//p' "$outdir/status" 2>/dev/null)
# (the runner there ended the rep itself when the connection went silent)
if [ "${late:-0}" = 1 ]; then
	outcome=timeout
elif [ "$sshrc" = 255 ] || { [ -n "$dest" ] && [ "${interrupted:-0}" = 1 ]; }; then
	outcome=connection-lost
elif [ "${timed_out:-0}" = 1 ]; then
	outcome=timeout
elif [ -z "$job_status" ]; then
	if [ -n "$dest" ]; then outcome=truncated; else outcome=runner-failed; fi
elif [ "$job_status" != 0 ]; then
	outcome=job-failed
else
	outcome=ok
fi

jq -n --arg outcome "$outcome" --arg job_status "${job_status:-}" --argjson elapsed_s "$elapsed" \
	--argjson timeout_s "$timeout" --arg target "${dest:+ssh:$dest${port:+:$port}}" --arg ssh_exit "${sshrc:-}" \
	'{outcome: $outcome, job_status: ($job_status | if . == "" then null else tonumber end),
	  elapsed_s: $elapsed_s, timeout_s: $timeout_s, target: (if $target == "" then "native" else $target end),
	  emulated: false}
	 + (if $ssh_exit == "" then {} else {ssh_exit: ($ssh_exit | tonumber)} end)' \
	>"$outdir/outcome.json" || die "could not write $outdir/outcome.json"
if [ "$json" = 1 ]; then cat "$outdir/outcome.json"; else echo "$outcome"; fi
[ "$outcome" = ok ]
