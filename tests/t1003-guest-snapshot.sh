#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Boot once, start many (bench/target/snapshot.sh, SLB_SNAPSHOT=on):
# under the virtual clock a guest booted to /init is kept, and runs start
# from it. A run
# from the kept guest is byte for byte the same run again, also from a
# guest kept anew (the snapshot point is the guest's, not the host's);
# the second run does not boot; the seed reaches the job (SLB_SEED), not
# the command line, and the kernel's random numbers (reseeded from
# RDRAND); a guest that never gets to /init, a job too big for the kept
# guest's fw_cfg file and QEMU arguments of the test's own make the run
# boot instead, and say so. Its guests keep their snapshots
# in a cache of the test's own.
. "$(dirname "$0")/lib.sh"
t_require_guest "guest snapshot tests"
kernel=$(cd "$T_ROOT" && scripts/build-kernel.sh --path)/build/arch/x86/boot/bzImage
export SLB_CACHE=$T_TMP/cache SLB_SNAPSHOT=on
mkdir -p "$SLB_CACHE"
free=$(df -P -m "$SLB_CACHE" | awk 'NR == 2 { print $4 }')
if [ "${free:-0}" -lt 2048 ]; then
	t_skip "guest snapshot tests" "only ${free:-0} MB free for the cache: run-guest keeps no guest under 2048"
	exit 0
fi
RG=("$T_ROOT/bench/target/run-guest.sh" --kernel "$kernel" -t 300)

t_ok "--snapshot bogus: exit 2, naming what is allowed" t_refuses "allowed: on off" "${RG[@]}" -o "$T_TMP/bogus" -n smoke --snapshot bogus

# What the job sees that a run could change: the seed, its command line,
# the virtual clock, the kernel's random numbers, RDRAND (QEMU's -seed).
job=$(t_job seen <<'JOB'
echo "seed=${SLB_SEED:-none}" >seen.txt
echo "cmdline=$(cat /proc/cmdline)" >>seen.txt
echo "uptime=$(cut -d' ' -f1 /proc/uptime)" >>seen.txt
echo "random=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')" >>seen.txt
slb-vclock spin --pauses 1000 --json 0 >>seen.txt
JOB
)
t_boot "$T_TMP/a" -j "$job" --seed 7 -t 300 --kernel "$kernel"
key=$(jq -r .snapshot "$T_TMP/a/outcome.json")
state=$SLB_CACHE/snapshot-$key/state
t_ok "the first run makes the snapshot and starts from it (outcome ok)" \
	sh -c "grep -qx ok '$T_TMP/a.outcome' && [ -s '$state' ] && [ -s '$SLB_CACHE/snapshot-$key/ram' ] || { cat '$T_TMP/a.stderr'; exit 1; }"
inode=$(stat -c %i "$state")
t_boot "$T_TMP/b" -j "$job" --seed 7 -t 300 --kernel "$kernel"
t_ok "the second run starts from the same kept guest, which is not made again" \
	sh -c "grep -qx ok '$T_TMP/b.outcome' && jq -e --arg k '$key' '.snapshot == \$k' '$T_TMP/b/outcome.json' >/dev/null &&
		[ \$(stat -c %i '$state') = $inode ]"
t_ok "... and is byte for byte the first run" cmp "$T_TMP/a/files/seen.txt" "$T_TMP/b/files/seen.txt"
t_ok "... console included (the boot's lines from the kept guest)" cmp "$T_TMP/a/console.log" "$T_TMP/b/console.log"
t_ok "the console shows the boot, the snapshot point and the job" \
	sh -c "grep -q 'Run /init as init process' '$T_TMP/b/console.log' && grep -q '^slb-init: snapshot point' '$T_TMP/b/console.log' &&
		grep -q '^slb-init: job exited with 0' '$T_TMP/b/console.log'"
t_ok "the seed is the job's (SLB_SEED=7), not the command line's" \
	sh -c "grep -qx seed=7 '$T_TMP/a/files/seen.txt' && grep -q '^cmdline=.* slb.snapshot=1' '$T_TMP/a/files/seen.txt' &&
		! grep -q 'slb.seed' '$T_TMP/a/files/seen.txt'"
t_boot "$T_TMP/c" -j "$job" --seed 8 -t 300 --kernel "$kernel"
t_ok "another seed starts from the same kept guest, and the job sees it" \
	sh -c "jq -e --arg k '$key' '.snapshot == \$k' '$T_TMP/c/outcome.json' >/dev/null && grep -qx seed=8 '$T_TMP/c/files/seen.txt'"
# slb-pause reseeds the kernel's generator from RDRAND, which follows -seed.
random_of() { sed -n 's/^random=//p' "$T_TMP/$1/files/seen.txt"; }
t_ok "... and other kernel random numbers (the generator reseeded from RDRAND)" \
	sh -c "[ -n '$(random_of a)' ] && [ '$(random_of a)' != '$(random_of c)' ]"
# The kept guest made again (as on another machine): the same runs.
rm -rf "$SLB_CACHE/snapshot-$key"
t_boot "$T_TMP/d" -j "$job" --seed 7 -t 300 --kernel "$kernel"
t_ok "a guest kept anew gives the same run byte for byte" \
	sh -c "[ \$(stat -c %i '$state') != $inode ] && cmp '$T_TMP/a/files/seen.txt' '$T_TMP/d/files/seen.txt'"
# Kept again while every host CPU is busy: the main loop gets to the
# guest's stop late, and the guest must not run on meanwhile (patch/qemu
# 0025-0026).
ram_sum=$(md5sum <"$SLB_CACHE/snapshot-$key/ram")
rm -rf "$SLB_CACHE/snapshot-$key"
busy=()
for _ in $(seq $(($(nproc) * 2))); do
	(while :; do :; done) &
	busy+=($!)
done
t_boot "$T_TMP/busy" -j "$job" --seed 7 -t 300 --kernel "$kernel"
kill "${busy[@]}"
wait "${busy[@]}" 2>/dev/null
t_ok "a guest kept while every host CPU is busy is the same guest and run, byte for byte" \
	sh -c "[ \"\$(md5sum <'$SLB_CACHE/snapshot-$key/ram')\" = '$ram_sum' ] && cmp '$T_TMP/a/files/seen.txt' '$T_TMP/busy/files/seen.txt'"

# Two runs of a guest not kept yet, at once: one makes it, both use it.
t_boot "$T_TMP/e1" -j "$job" --seed 7 -t 300 --kernel "$kernel" --smp 3 &
t_boot "$T_TMP/e2" -j "$job" --seed 7 -t 300 --kernel "$kernel" --smp 3 &
wait
t_ok "two runs at once of a guest not kept yet: both ok, the same run, one snapshot" \
	sh -c "grep -qx ok '$T_TMP/e1.outcome' && grep -qx ok '$T_TMP/e2.outcome' &&
		cmp '$T_TMP/e1/files/seen.txt' '$T_TMP/e2/files/seen.txt' &&
		[ \$(ls -d '$SLB_CACHE'/snapshot-* | grep -vc '\\.lock\$') = 2 ]"

# What boots instead.
head -c 20000 /dev/zero | tr '\0' '#' | fold -w 100 >"$T_TMP/big.sh"
cat "$job" >>"$T_TMP/big.sh"
t_boot "$T_TMP/big" -j "$T_TMP/big.sh" --seed 7 -t 300 --kernel "$kernel"
t_ok "a job over 16 KiB boots (no snapshot) and runs" \
	sh -c "grep -qx ok '$T_TMP/big.outcome' && jq -e '.snapshot == null' '$T_TMP/big/outcome.json' >/dev/null &&
		grep -q ' slb.seed=7' '$T_TMP/big/cmdline' && grep -qx seed=none '$T_TMP/big/files/seen.txt'"
t_boot "$T_TMP/arg" -j "$job" -t 300 --kernel "$kernel" --qemu-arg -name --qemu-arg test
t_ok "a run with QEMU arguments of its own boots (no snapshot)" \
	sh -c "grep -qx ok '$T_TMP/arg.outcome' && jq -e '.snapshot == null' '$T_TMP/arg/outcome.json' >/dev/null"
t_boot "$T_TMP/off" -j "$job" -t 300 --kernel "$kernel" --snapshot off
t_ok "--snapshot off boots" sh -c "grep -qx ok '$T_TMP/off.outcome' && jq -e '.snapshot == null' '$T_TMP/off/outcome.json' >/dev/null"
# A guest that dies before /init: the snapshot cannot be made; the run
# boots it and records the panic.
t_boot "$T_TMP/noinit" -j "$job" -t 300 --kernel "$kernel" -a "rdinit=/nonexistent init=/nonexistent"
t_ok "a guest that never gets to /init: the run boots, says why, records the panic" \
	sh -c "grep -qx panic '$T_TMP/noinit.outcome' && grep -q 'no snapshot of this guest (.*): booting it' '$T_TMP/noinit.stderr' &&
		jq -e '.snapshot == null and (.reason | test(\"Kernel panic\"))' '$T_TMP/noinit/outcome.json' >/dev/null"
t_ok "... and leaves nothing half made in the cache" sh -c "! ls -d '$SLB_CACHE'/snapshot-*.tmp.* 2>/dev/null"
