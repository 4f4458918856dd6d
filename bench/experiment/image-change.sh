#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Does an unrelated change of the guest image move the study's results
# more than its reps' intervals say? (make bench-image) The study's
# scenarios run twice with the same seeds (virtual clock): on the
# initramfs SLB_INITRD (image A) and on A with one more cpio member, a
# file of PAD zero bytes that nothing reads (image B: the same programs,
# every event after the kernel unpacks it shifted by the unpacking). Then
# per scenario B over A (bench/experiment/compare.sh: ratio with its 95 % interval,
# exact test), and per comparison of the study (split-off / aligned, ...)
# A's ratio and interval beside B's, and whether each estimate lies in the
# other's interval. An interval that covers what a user varies holds B's
# estimate. Results in RESULTS/<id>/ (written as .incomplete-<id>, renamed
# at the end): A/ and B/ (study runs), compare-A-vs-B/, image.md and
# image.json; image B itself is not kept (its sha256 is).
#
# Exit status: 0 done (whatever it found), 1 failure, 2 usage error
# (nothing started).
set -uo pipefail
SLB_PROG=image-change
. "$(dirname "$0")/../../scripts/lib.sh"
. "$SLB_ROOT/scripts/lib-run.sh"
. "$SLB_ROOT/rt-config/defaults.conf"

scenarios=baseline,aligned,split-off,split-warn pad=1000003 reps=$REPS_DEFAULT duration=$DURATION_DEFAULT
jobs=$JOBS_DEFAULT model=${SLB_BUS_LOCK_MODEL:-$BUS_LOCK_MODEL_DEFAULT} results=$SLB_ROOT/results id= validate=0
calibration=${SLB_CALIBRATION:-$SLB_ROOT/$CALIBRATION_DEFAULT}

usage() {
	cat <<USAGE
Usage: image-change.sh [options]
Run the study's scenarios on the guest image (\$SLB_INITRD) and on the
same image with an unused file added, same seeds, and compare.

  -s, --scenarios LIST  the study's scenarios (default $scenarios)
  -p, --pad BYTES       size of the unused file, 1 to 100000000 (default $pad)
  -d, --duration S      cyclictest seconds per run, 3 to 3600 (default $duration)
  -r, --reps N          repetitions (seeds 1..N on both images), 1 to 100
                        (default $reps)
  -j, --jobs N          guests at once, 1 to 16 (default $jobs)
      --bus-lock-model M  calibrated or all (default $model)
      --calibration FILE  the calibrated model's calibration.json (default
                        \$SLB_CALIBRATION or $CALIBRATION_DEFAULT)
  -o, --results DIR     where the run goes (default results/)
      --id ID           run id (default: image-date-time)
      --validate        check the arguments and exit (0 good, 2 bad)
  -h, --help            this text
Environment: SLB_QEMU, SLB_INITRD (set by make bench-image).
USAGE
}

opts=$(getopt -n image-change -o s:p:d:r:j:o:h \
	-l scenarios:,pad:,duration:,reps:,jobs:,bus-lock-model:,calibration:,results:,id:,validate,help -- "$@") || exit 2
eval set -- "$opts"
while true; do
	case $1 in
	-s | --scenarios) scenarios=$2; shift 2 ;;
	-p | --pad) pad=$2; shift 2 ;;
	-d | --duration) duration=$2; shift 2 ;;
	-r | --reps) reps=$2; shift 2 ;;
	-j | --jobs) jobs=$2; shift 2 ;;
	--bus-lock-model) model=$2; shift 2 ;;
	--calibration) calibration=$2; shift 2 ;;
	-o | --results) results=$2; shift 2 ;;
	--id) id=$2; shift 2 ;;
	--validate) validate=1; shift ;;
	-h | --help) usage; exit 0 ;;
	--) shift; break ;;
	esac
done
[ $# -eq 0 ] || usage_error "unexpected argument '$1' (see --help)"
check_number --pad "$pad" 1 100000000
[ -n "$id" ] || id=image-$(date +%Y%m%d-%H%M%S)
check_run_id "$results" "$id" "image-change run"
study=("$SLB_ROOT/bench/study.sh" --clock virtual --scenarios "$scenarios" --duration "$duration"
	--reps "$reps" --jobs "$jobs" --bus-lock-model "$model" --calibration "$calibration")
# The study checks the rest (and exits 2 naming the value).
"${study[@]}" --validate --results "$results" || exit 2
[ "$validate" = 0 ] || exit 0
initrd=${SLB_INITRD:-}
[ -f "$initrd" ] || usage_error "SLB_INITRD '$initrd' is not a file (run 'make initramfs'; make bench-image sets it)"
command -v cpio >/dev/null || usage_error "cpio is not installed (make deps)"

begin_run_dir "$results" "$id" "image-*" "an image-change run"
tmp=$RUN_TMP
trap 'trap "" INT TERM HUP; sub_stop; rm -rf "$tmp"; say "interrupted: nothing kept of $id"; exit 130' INT TERM HUP

# Image B: A, NULs up to a 4-byte boundary, and a newc cpio member
# /slb-pad (owner 0, time 0: the same bytes every time). The kernel
# unpacks concatenated archives one after another, skipping NULs between
# them, but takes a newc member only at a 4-byte offset (init/initramfs.c:
# "broken padding" after a plain cpio such as ours; "invalid magic at start
# of compressed archive" after a compressed one).
mkdir -p "$tmp/pad" || die "cannot create $tmp/pad"
head -c "$pad" /dev/zero >"$tmp/pad/slb-pad" && touch -d @0 "$tmp/pad/slb-pad" || die "cannot write the pad file"
(cd "$tmp/pad" && echo slb-pad | cpio -o -H newc -R 0:0 --reproducible --quiet) >"$tmp/pad.cpio" || die "cpio failed"
cp "$initrd" "$tmp/B.img" && truncate -s %4 "$tmp/B.img" && cat "$tmp/pad.cpio" >>"$tmp/B.img" ||
	die "cannot write image B"
rm -rf "$tmp/pad" "$tmp/pad.cpio"
sha_a=$(sha256sum <"$initrd" | cut -c1-64) sha_b=$(sha256sum <"$tmp/B.img" | cut -c1-64)

start=$(date +%s)
for v in A B; do
	img=$initrd
	[ "$v" = A ] || img=$tmp/B.img
	say "[$([ "$v" = A ] && echo 1 || echo 2)/2] the study on image $v ($scenarios, $reps reps; log $tmp/$v.log); elapsed $(($(date +%s) - start)) s"
	sub_start "on image $v" "$tmp/$v.log" env SLB_INITRD="$img" "${study[@]}" --results "$tmp" --id "$v"
	sub_wait || { rm -f "$tmp/B.img"; exit 1; }
	# The study records a failed guest and goes on; the images are
	# compared seed by seed, so a failed rep leaves nothing to compare.
	bad=$(jq -r '[.scenarios[] | select(.reps_ok < .reps_total) |
		"\(.name): \(.reps_total - .reps_ok) of \(.reps_total) reps failed (\([.reps[].outcome | select(. != "ok")] | unique | join(", ")))"] | join("; ")' \
		"$tmp/$v/summary.json" 2>/dev/null) || bad="no summary.json"
	# A guest that could not unpack image B boots from A's files alone.
	[ -n "$bad" ] || bad=$(grep -l "Initramfs unpacking failed" "$tmp/$v"/*/rep*/console.log 2>/dev/null |
		sed "s|^$tmp/||; s|$| says 'Initramfs unpacking failed'|" | paste -sd ';' -)
	[ -z "$bad" ] || { rm -f "$tmp/B.img"; say "the study on image $v failed (log: $tmp/$v.log): $bad"; exit 1; }
	rm -f "$tmp/$v/latest"
done
rm -f "$tmp/B.img"
SLB_RESULTS=$tmp "$SLB_ROOT/bench/experiment/compare.sh" A B >"$tmp/compare.log" 2>&1 || die "compare failed (log: $tmp/compare.log)"
cmp=$tmp/compare-A-vs-B/compare.json

# One reading of both runs: per scenario B/A, per comparison A's and B's.
jq -n --slurpfile c "$cmp" --slurpfile a "$tmp/A/stats.json" --slurpfile b "$tmp/B/stats.json" \
	--arg init "$initrd" --arg sha_a "$sha_a" --arg sha_b "$sha_b" --argjson pad "$pad" \
	--arg model "$model" --argjson reps "$reps" '
	def inside(x; ci): if ci[0] == null then null else x >= ci[0] and x <= ci[1] end;
	{image_a: {path: $init, sha256: $sha_a}, image_b: {sha256: $sha_b, pad_bytes: $pad},
	 bus_lock_model: $model, reps: $reps, clock: "virtual",
	 scenarios: [$c[0].comparisons[] | {scenario: .b, ratio_p999: .ratio_p999, ratio_p999_ci: .ratio_p999_ci,
		p: .p, design: .design, significant: .significant, equivalence: .equivalence}],
	 comparisons: [$a[0].comparisons[] | . as $x | ($b[0].comparisons[] | select(.label == $x.label)) as $y |
		{label: $x.label, a: {ratio_p999: $x.ratio_p999, ci: $x.ratio_p999_ci, significant: $x.significant},
		 b: {ratio_p999: $y.ratio_p999, ci: $y.ratio_p999_ci, significant: $y.significant},
		 b_in_a: inside($y.ratio_p999; $x.ratio_p999_ci), a_in_b: inside($x.ratio_p999; $y.ratio_p999_ci),
		 same_verdict: ($x.significant == $y.significant)}]}
	| .scenarios_moved = [.scenarios[] | select(.significant) | .scenario]
	| .comparisons_outside = [.comparisons[] | select(.b_in_a == false or .a_in_b == false) | .label]
	| .comparisons_no_interval = [.comparisons[] | select(.b_in_a == null or .a_in_b == null) | .label]' \
	>"$tmp/image.json" || die "could not write image.json"
{
	echo "# Does an unused file in the guest image move the results? Run $id"
	echo
	echo "Emulated, virtual time (QEMU TCG): the same seeds 1-$reps on image A"
	echo "(\`$initrd\`, sha256 ${sha_a:0:16}) and image B (A and an unused"
	echo "file of $pad bytes, sha256 ${sha_b:0:16}); bus-lock model $model."
	echo
	echo "## Per scenario, B over A (p99.9, corrected)"
	echo
	echo "| scenario | B/A p99.9 | 95 % CI | exact test p | design | moved (significant) | equivalent within x1.2 |"
	echo "| --- | --- | --- | --- | --- | --- | --- |"
	jq -r 'def ci(c): if c[0] == null then "no CI" else c | map(tostring) | join("-") end;
		.scenarios[] | "| \(.scenario) | x\(.ratio_p999) | \(ci(.ratio_p999_ci)) | \(.p) | \(.design // "unpaired") | \(if .significant then "yes" else "no" end) | \(.equivalence // "-") |"' "$tmp/image.json"
	echo
	echo "## The study's comparisons on each image (p99.9, corrected)"
	echo
	echo "| comparison | on A (95 % CI) | on B (95 % CI) | B in A's CI | A in B's CI | same verdict |"
	echo "| --- | --- | --- | --- | --- | --- |"
	jq -r 'def ci(c): if c[0] == null then "no CI" else "\(c[0])-\(c[1])" end; def yn(b): if b == null then "n/a (no interval)" elif b then "yes" else "no" end;
		.comparisons[] | "| \(.label) | x\(.a.ratio_p999) (\(ci(.a.ci))) | x\(.b.ratio_p999) (\(ci(.b.ci))) | \(yn(.b_in_a)) | \(yn(.a_in_b)) | \(yn(.same_verdict)) |"' "$tmp/image.json"
	echo
	jq -r '"Scenarios the unused file moved (B/A significant): \(.scenarios_moved | if length == 0 then "none" else join(", ") end).",
		"Comparisons whose estimate on one image lies outside the other'"'"'s interval: \(.comparisons_outside | if length == 0 then "none" else join(", ") end).",
		(.comparisons_no_interval | select(length > 0) | "Comparisons without an interval (too few reps): \(join(", "))."),
		"Not moved is not the same as equivalent: see the last column of the first table (1 us bins cannot resolve x1.2 near a 3 us floor)."' "$tmp/image.json"
} >"$tmp/image.md"
end_run_dir "$tmp" "$results/$id"
cat "$results/$id/image.md"
say "image-change run $id complete in $(($(date +%s) - start)) s: $results/$id"
