#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/experiment/image-change.sh (make bench-image) end to end on a tiny matrix
# (baseline and split-on, 1 rep of 3 s on each image): image B is image A
# and an unused file, which the guest kernel unpacks, also when A's
# length is not a multiple of 4 (the kernel takes a cpio member only at a
# 4-byte offset; A here is the initramfs and 1 or 2 NULs); both studies, their comparison and image.json/md come
# out, and with 1 rep no interval is called missed; image B is not kept; a
# failing study keeps no run (its logs stay in .incomplete-ID).
. "$(dirname "$0")/lib.sh"
# Its guests run the all-stall model (no modelled cache to look up): what
# is checked is the two studies and their comparison, which no figure of the
# calibrated model changes, and a calibrated guest costs x1.7 the host time.
export SLB_BUS_LOCK_MODEL=all
t_require_guest "image-change tests"
IC=$T_ROOT/bench/experiment/image-change.sh
res=$T_TMP/results
cp "$SLB_INITRD" "$T_TMP/a.img"
head -c $(($(stat -c %s "$T_TMP/a.img") % 4 == 3 ? 2 : 1)) /dev/zero >>"$T_TMP/a.img"
SLB_INITRD=$T_TMP/a.img "$IC" --scenarios baseline,split-on --pad 2000000 --duration 3 --reps 1 --results "$res" --id i >"$T_TMP/ic.out" 2>&1
rc=$?
r=$res/i
t_ok "the run completes (exit 0)" sh -c "[ $rc = 0 ] || { tail -20 '$T_TMP/ic.out'; exit 1; }"
t_ok "progress names both images" sh -c "grep -q '\[1/2\] the study on image A' '$T_TMP/ic.out' && grep -q '\[2/2\] the study on image B' '$T_TMP/ic.out'"
t_ok "a study per image, and their comparison" sh -c "[ -s '$r/A/stats.json' ] && [ -s '$r/B/stats.json' ] && [ -s '$r/compare-A-vs-B/compare.json' ]"
# loaded KIB FILE: the initrd the guest kernel was given, in KiB (its
# "RAMDISK: [mem START-END]"; it keeps that memory, retain_initrd).
loaded() {
	sed -n 's/.*RAMDISK: \[mem 0x\([0-9a-f]*\)-0x\([0-9a-f]*\)\].*/\1 \2/p' "$1" |
		{ read -r s e && echo $(((0x$e + 1 - 0x$s) / 1024)); }
}
grown() {
	local a b
	a=$(loaded "$r/A/baseline/rep1/console.log") b=$(loaded "$r/B/baseline/rep1/console.log")
	[ -n "$a" ] && [ -n "$b" ] && [ $((b - a)) -ge 1900 ] && [ $((b - a)) -le 2000 ] ||
		{ echo "initrd loaded: A ${a}K, B ${b}K; expected B larger by the 2000000-byte file"; return 1; }
}
t_ok "the guest loaded image B: its initrd is larger by the file" grown
t_ok "image A's length is not a multiple of 4" test $(($(stat -c %s "$T_TMP/a.img") % 4)) != 0
t_ok "... and the guest unpacked image B whole" sh -c "[ -f '$r/B/baseline/rep1/console.log' ] && ! grep 'Initramfs unpacking failed' '$r/B/baseline/rep1/console.log'"
t_ok "with 1 rep no comparison has an interval, and none is called outside one" \
	jq -e '.comparisons_outside == [] and .comparisons_no_interval == ["split-on / baseline"] and .comparisons[0].b_in_a == null' "$r/image.json"
t_ok "image.md says which comparisons had no interval" grep -q "without an interval (too few reps): split-on / baseline" "$r/image.md"
t_ok "image.json names both images and the pad" jq -e '.image_b.pad_bytes == 2000000 and (.image_a.sha256 | length == 64)
	and .image_a.sha256 != .image_b.sha256 and .clock == "virtual"' "$r/image.json"
t_ok "image.json has B/A per scenario and the study's comparison on each image" \
	jq -e '([.scenarios[].scenario] | sort) == ["baseline", "split-on"] and ([.comparisons[].label] == ["split-on / baseline"])
	and (.comparisons[0] | has("b_in_a") and has("a_in_b") and has("same_verdict"))' "$r/image.json"
t_ok "image.md has both tables" sh -c "grep -q '^| baseline | x' '$r/image.md' && grep -q '^| split-on / baseline | x' '$r/image.md'"
t_ok "image B itself is not kept" sh -c "! find '$r' -name B.img | grep -q ."
t_ok "the same id is refused" t_refuses "'i' exists" "$IC" --scenarios baseline --reps 1 --duration 3 --results "$res" --id i
t_ok "a pad of 0 bytes is refused" t_refuses "--pad=0 is out of range (allowed: 1 to 100000000)" "$IC" --pad 0 --results "$res"
t_ok "no SLB_INITRD is refused" t_refuses "SLB_INITRD '' is not a file" env -u SLB_INITRD "$IC" --results "$res"
SLB_QEMU=/bin/false "$IC" --scenarios baseline --duration 3 --reps 1 --results "$res" --id f >"$T_TMP/f.out" 2>&1
rc=$?
t_ok "a failing study fails the run (exit 1) and names its log" sh -c "[ $rc = 1 ] && grep -q 'the study on image A failed (log: ' '$T_TMP/f.out' || { cat '$T_TMP/f.out'; exit 1; }"
t_ok "... and keeps no run" test ! -e "$res/f"
t_ok "... nor image B" sh -c "! ls '$res'/.incomplete-f/B.img 2>/dev/null"
