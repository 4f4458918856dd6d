# SPDX-License-Identifier: GPL-2.0-or-later
# Boot once, start many (sourced by bench/target/run-guest.sh, virtual
# clock): a guest booted to /init is kept in the cache, and each run
# starts from it instead of booting again.
#
# The snapshot point is the guest's own: /init, told so by slb.snapshot=1,
# runs slb-pause before it reads its job, which stops the guest at that
# instruction (QEMU's pvpanic device, -action panic=pause). Under the
# virtual clock that is the same guest state on every machine, whenever
# the host looks. The guest's RAM is a file there (snapshot-KEY/ram,
# shared), so that migrating the stopped guest (to snapshot-KEY/state)
# writes only the devices and CPUs (x-ignore-shared). A run maps that RAM
# file copy-on-write (share=off: its writes stay its own), takes the
# state in (-incoming), with its own job and -seed, and is let go (cont):
# the guest returns from slb-pause and reads the job. Every run, the
# first included, starts from the kept guest, so that a run is the same
# whether it made the snapshot or not.
#
# What a run may change after the point and what it may not:
#   - the job: fw_cfg's opt/slb/job, whose size the guest read at boot,
#     so every job is padded to SNAP_JOB_BYTES; it starts with
#     SLB_SEED=SEED (the seed is not on the command line);
#   - -seed: QEMU's RNG for the guest (RDRAND) from the start on;
#   - nothing else: the key (snapshot-KEY in $SLB_CACHE) is a hash of
#     the emulator's, kernel's and image's paths, sizes and times and of
#     every QEMU argument but the seed, the job and the output files.
#
# The cache keeps SLB_SNAP_KEEP snapshots, the least recently used go
# first; none is made where it has less than SLB_SNAP_MIN_FREE_MB free
# (both scripts/lib.sh: how much the cache holds changes no run).
#
# Functions return 0 or 1 (with a reason on stderr); none exits.

SNAP_JOB_BYTES=16384

# snap_key QEMU KERNEL INITRD ARG...: the key of the guest these make.
snap_key() {
	local qemu=$1 kernel=$2 initrd=$3
	shift 3
	{
		stat -L -c '%n %s %Y' "$qemu" "$kernel" "$initrd"
		printf '%q\n' "$@"
	} | sha256sum | cut -c1-16
}

# snap_job JOB SEED OUT: JOB with the seed first, padded to
# SNAP_JOB_BYTES with newlines, in OUT; 1 if it does not fit.
snap_job() {
	local size
	{ printf 'SLB_SEED=%s; export SLB_SEED\n' "$2"; cat "$1"; echo; } >"$3" || return 1
	size=$(stat -c %s "$3")
	[ "$size" -le "$SNAP_JOB_BYTES" ] || return 1
	head -c $((SNAP_JOB_BYTES - size)) /dev/zero | tr '\0' '\n' >>"$3"
}

# The monitor: QEMU's HMP on a pipe pair DIR/mon.{in,out}.
# mon_open DIR: make the pipes; mon_start DIR: open them once QEMU runs
# (fd 7 in, 8 out) and log its answers in DIR/mon.log.
mon_open() {
	rm -f "$1/mon.in" "$1/mon.out" && mkfifo "$1/mon.in" "$1/mon.out"
}
# Both are opened read-write, which never blocks: a QEMU that fails
# before it opens them cannot hang the runner.
mon_start() {
	exec 7<>"$1/mon.in" 8<>"$1/mon.out"
	cat <&8 >"$1/mon.log" &
	mon_cat=$!
}
mon_close() {
	exec 7>&- 8<&-
	[ -z "${mon_cat:-}" ] || { kill "$mon_cat" 2>/dev/null; wait "$mon_cat" 2>/dev/null; }
	mon_cat=
}

# mon_until DIR PID SECONDS CMD PATTERN: send CMD every 0.05 s until the
# monitor's log shows PATTERN (true), QEMU (PID) exits or SECONDS pass.
mon_until() {
	local dir=$1 pid=$2 n=$(($3 * 20)) cmd=$4 pat=$5
	while [ "$n" -gt 0 ]; do
		kill -0 "$pid" 2>/dev/null || return 1
		echo "$cmd" >&7 || return 1
		sleep 0.05
		grep -q -- "$pat" "$dir/mon.log" 2>/dev/null && return 0
		n=$((n - 1))
	done
	return 1
}

# snap_ram FILE MB SHARE: the arguments that give the guest MB of RAM
# in FILE, shared (on) or copy-on-write (off).
snap_ram() {
	printf '%s\n' -object "memory-backend-file,id=ram,size=$2M,mem-path=$1,share=$3" -machine memory-backend=ram
}

# snap_make DIR QEMU TIMEOUT MB ARG...: boot QEMU ARG... (the snapshot
# point on) with MB of RAM in DIR/ram to the point, and migrate it to
# DIR/state. The console so far goes to DIR/console.log.
snap_make() {
	local dir=$1 qemu=$2 limit=$3 mb=$4 pid n ok=1 ram
	shift 4
	mon_open "$dir" || return 1
	mapfile -t ram < <(snap_ram "$dir/ram" "$mb" on)
	"$qemu" "$@" "${ram[@]}" -monitor "pipe:$dir/mon" -serial "file:$dir/console.log" </dev/null >/dev/null 2>"$dir/qemu.stderr" &
	pid=$!
	mon_start "$dir"
	# Look only at the console until the guest says it is there: no
	# monitor traffic while it boots.
	n=$((limit * 10))
	until grep -q '^slb-init: snapshot point' "$dir/console.log" 2>/dev/null; do
		kill -0 "$pid" 2>/dev/null && [ "$n" -gt 0 ] || { ok=0; break; }
		sleep 0.1
		n=$((n - 1))
	done
	if [ "$ok" = 1 ] && mon_until "$dir" "$pid" 30 "info status" 'guest-panicked' &&
		echo "migrate_set_capability x-ignore-shared on" >&7 &&
		echo "migrate -d \"exec:cat > $dir/state\"" >&7 &&
		mon_until "$dir" "$pid" 120 "info migrate" '^Migration status: \(completed\|failed\)' &&
		grep -q '^Migration status: completed' "$dir/mon.log"; then
		echo quit >&7
		wait_timeout "$pid" 30 || ok=0
	else
		ok=0
	fi
	kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	mon_close
	[ "$ok" = 1 ] && [ -s "$dir/state" ] || {
		echo "the guest did not reach its snapshot point ($(grep -a . "$dir/console.log" 2>/dev/null | tail -n 1 | cut -c1-200))" >&2
		return 1
	}
}

# snap_get KEY QEMU TIMEOUT MB ARG...: the snapshot directory of KEY
# (ram, state, console.log), made if missing; 1 if it cannot be made.
snap_get() {
	local key=$1 qemu=$2 limit=$3 mb=$4 dir rc
	shift 4
	dir=$SLB_CACHE/snapshot-$key
	# The path goes into monitor commands unquoted.
	[[ $SLB_CACHE =~ ^[A-Za-z0-9/._+-]+$ ]] || { echo "the cache's path '$SLB_CACHE' has characters a monitor command cannot take" >&2; return 1; }
	mkdir -p "$SLB_CACHE" || return 1
	exec 9>"$dir.lock"
	flock 9
	snap_fill "$dir" "$qemu" "$limit" "$mb" "$@"
	rc=$?
	exec 9>&-
	[ "$rc" = 0 ] && echo "$dir"
}

# snap_fill DIR QEMU TIMEOUT MB ARG...: under the lock, DIR made where
# it is missing (as snap_make), and marked used.
snap_fill() {
	local dir=$1 free tmp
	if [ ! -f "$dir/state" ]; then
		free=$(df -P -m "$SLB_CACHE" | awk 'NR == 2 { print $4 }')
		if [ "${free:-0}" -lt "$SLB_SNAP_MIN_FREE_MB" ]; then
			echo "only ${free:-0} MB free in $SLB_CACHE" >&2
			return 1
		fi
		tmp=$(mktemp -d "$dir.tmp.XXXXXX") || return 1
		shift
		snap_make "$tmp" "$@" && rm -f "$tmp/mon.in" "$tmp/mon.out" "$tmp/mon.log" &&
			rm -rf "$dir" && mv -T "$tmp" "$dir" || { rm -rf "$tmp"; return 1; }
		snap_prune
	fi
	touch "$dir"
}

# snap_prune: keep the SLB_SNAP_KEEP snapshots used last.
snap_prune() {
	local old
	ls -1dt "$SLB_CACHE"/snapshot-*[0-9a-f] 2>/dev/null | tail -n +$((SLB_SNAP_KEEP + 1)) |
		while read -r old; do rm -rf "$old" "$old.lock"; done
}

# snap_start DIR SNAPDIR PID: QEMU (PID, started with SNAPDIR's RAM,
# -incoming defer and the monitor on DIR/mon) takes SNAPDIR/state in;
# then the guest goes on. 1 if it does not within 60 s.
snap_start() {
	mon_start "$1"
	echo "migrate_set_capability x-ignore-shared on" >&7
	echo "migrate_incoming \"exec:cat $2/state\"" >&7
	if mon_until "$1" "$3" 60 "info status" 'guest-panicked'; then
		echo cont >&7
		return 0
	fi
	echo "QEMU did not take the snapshot $2 in" >&2
	return 1
}
