# SPDX-License-Identifier: GPL-2.0-or-later
# The one reader of slb-calibrate's calibration.json (schema 1), for
# bench/experiment/calibrate.sh, bench/experiment/validate-model.sh and bench/report/report.sh:
#   jq -L "$SLB_JQ_LIB" 'include "calibration"; cal_check | ...' FILE

# cal_check: the document, when it holds what the readers use (tool,
# params.load_form, victim points with their three loads and ratios,
# levels, issuer forms); else an error saying what is missing.
def cal_check:
	def need($what; cond): if cond then . else error("no \($what)") end;
	need("JSON object"; type == "object")
	| need("\"tool\": \"slb-calibrate\""; .tool == "slb-calibrate")
	| need("params.load_form"; (.params.load_form | type) == "string")
	| need("victim points"; (.victim | type) == "array" and (.victim | length) > 0
		and all(.victim[]; (.task == "arith" or (.task == "chase" and (.bytes | type) == "number"))
			and (.split_over_aligned.ratio | type) == "number"
			and all(.none, .aligned, .split; (.ns_per_step | type) == "number")))
	| need("levels"; (.levels | type) == "array" and all(.levels[]; (.level | type) == "string"))
	| need("issuer forms"; (.issuer | type) == "array" and all(.issuer[]; (.form | type) == "string"));

# cal_machine: the machine a calibration measured, in words: its CPU
# model and, when the hypervisor flag was set, that it is a virtual machine.
def cal_machine:
	"\(.machine.cpu_model // "an unnamed CPU")\(if .machine.hypervisor then ", a virtual machine (hypervisor flag set)" else "" end)";

# cal_est(f): [estimate, lo, hi] of an estimate object whose value is field
# f (.ratio, .ns_per_step, .ns_per_op); no interval: the point, twice.
def cal_est(f): [f, (.ci95 // [f, f])[]];

# cal_chase: the victim's working-set points, smallest first.
def cal_chase: .victim[] | select(.task == "chase");

# cal_point($bytes): the victim point of working set $bytes (null: the
# arithmetic loop); empty when the run has no such point.
def cal_point($bytes):
	first(.victim[] | select(if $bytes == null then .task == "arith" else .task == "chase" and .bytes == $bytes end));

# cal_issuer($form): the issuer's entry for LOCKed form $form (or empty).
def cal_issuer($form): first(.issuer[] | select(.form == $form));

# cal_victim_dat, cal_slowdown_dat: the plot data of make calibrate, one
# row per working set (ns per step under each load; the two ratios).
def cal_victim_dat:
	"# bytes level none none_lo none_hi aligned aligned_lo aligned_hi split split_lo split_hi (ns per step)",
	(cal_chase | [.bytes, .level] + ([.none, .aligned, .split] | map(cal_est(.ns_per_step)) | add)
	 | map(tostring) | join(" "));
def cal_slowdown_dat:
	"# bytes level split_over_aligned lo hi aligned_over_none lo hi",
	(cal_chase | [.bytes, .level] + ([.split_over_aligned, .aligned_over_none] | map(cal_est(.ratio)) | add)
	 | map(tostring) | join(" "));

# cal_plot_vars($id): the gnuplot assignments of plots/calibrate-*.gp.
def cal_plot_vars($id):
	cal_point(null) as $a |
	"run=\"\($id)\"; cpu=\"\(.machine.cpu_model | gsub("\""; ""))\(if .machine.hypervisor then ", a VM" else "" end)\"; " +
	"victim_cpu=\(.params.victim_cpu); load_cpu=\(.params.load_cpu); load_form=\"\(.params.load_form)\"; reps=\(.params.reps); " +
	"caches=\"\([.machine.caches[].bytes] | map(tostring) | join(" "))\"; " +
	"cachenames=\"\([.machine.caches[].level] | map("L\(.)") | join(" "))\"; " +
	"arith=\"\([$a.none, $a.aligned, $a.split] | map(.ns_per_step | tostring) | join(" "))\"; " +
	"arith_ratio=\"\($a.split_over_aligned.ratio)\"";

# cal_model: the calibrated bus-lock model (BUS_LOCK_MODEL=calibrated,
# patch/qemu 0008-0009) from a native calibration, or an error saying why
# it cannot be made:
#   cost_ns     what a split LOCK of the load's form costs its issuer
#               (issuer ns per op, split);
#   slowed      the working-set levels where a bus lock's victims
#               start, and those past them: decided by the jump, not by
#               any measurable slowdown. A level is slowed at all when
#               its split/aligned is at least x1.05 with the 95 %
#               interval above 1; of those, let m be the largest
#               split/aligned; the slowed levels are the significant
#               ones at least sqrt(m), the geometric midpoint between
#               not slowed (x1) and m. The model has two speeds for a
#               victim, not delayed (inside the shield) or slowed as much
#               as m (outside), and a level on the sqrt(m) side of either
#               is nearer it on a log scale: that choice keeps its
#               model/native ratio within sqrt(m) either way. A level
#               slowed a few percent under a large jump elsewhere (x1.09
#               beside x12.6) is then shielded; where the largest is
#               small (x1.14, a trapping hypervisor) the threshold is too;
#   shield      the cache level just inside the first slowed one: a
#               victim's accesses that hit it are not delayed (the
#               last-level cache when none is slowed). shield_kb is its
#               size; cache_kb and cache_ways model it: the largest cache
#               the emulator takes (8 to 32 ways, a power of two of sets,
#               at most 65536 KiB) that is not larger, the fewest ways
#               among equals (the level itself where it fits: 32 KiB 8
#               ways, 48 KiB 12). none (cache_kb 0, cache_ways 0) when L1
#               is slowed: every vCPU then waits wherever it meets a lock
#               (bench/target/run-guest.sh takes ways 0 with no cache);
#   hold_ns     how long a lock holds the bus: a victim that misses on
#               every access loses hold_ns per cost_ns, so it runs at
#               (cost - hold) / cost of its speed: hold = cost (1 - 1/m)
#               for the largest slowdown m of the slowed levels (of all
#               levels when none is slowed), at least 1 ns.
# cal_model($cost): the same model scaled to another split-lock cost
# ($cost ns, 1 to 1000000; null: the calibration's own): the issuer pays
# $cost, the hold keeps the calibration's share of the cost (hold =
# $cost (1 - 1/s), so a cache-missing victim is slowed as much as the
# calibration measured) and the shield is unchanged; calibrated_cost_ns
# and calibrated_hold_ns keep the calibration's own figures, scaled says
# whether $cost differs from them.
def cal_model($scale_to):
	def p2floor: . as $n | last(range(0; 64) | pow(2; .) | select(. <= $n));
	cal_check
	| .params.load_form as $form
	| ((cal_issuer($form) | .split.ns_per_op) // error("no issuer cost for the load form \($form)")) as $c
	| ($c | round) as $calcost
	| if $calcost < 1 or $calcost > 1000000 then error("the issuer's split-lock cost, \($calcost) ns, is out of range (1 to 1000000 ns)") else . end
	| if $scale_to != null and (($scale_to | type) != "number" or $scale_to != ($scale_to | floor) or $scale_to < 1 or $scale_to > 1000000)
	  then error("the cost to scale to, \($scale_to), is not a whole number of ns from 1 to 1000000") else . end
	| ($scale_to // $calcost) as $cost
	| [.levels[] | select(.task == "chase" and (.level | test("^L[0-9]+$|^DRAM$")))] as $lv
	| if ($lv | length) == 0 then error("no cache or DRAM levels") else . end
	| [$lv[] | select(.split_over_aligned.ratio >= 1.05 and ((.split_over_aligned.ci95 // [.split_over_aligned.ratio])[0] > 1))] as $sig
	| ([$sig[].split_over_aligned.ratio] | max) as $m
	| [$sig[] | select(.split_over_aligned.ratio >= ($m // 1 | sqrt))] as $slowed
	| (if ($slowed | length) > 0 then $slowed else $lv end | map(.split_over_aligned.ratio) | max) as $s
	| (if ($slowed | length) > 0 then ($slowed[0].level) else "DRAM" end) as $first
	| (if $first == "DRAM" then ([.machine.caches[] | select(.type != "Instruction") | .level] | max)
	   else ($first | ltrimstr("L") | tonumber) - 1 end) as $k
	| (if $k == null or $k < 1 then 0
	   else (first(.machine.caches[] | select(.level == $k and .type != "Instruction") | .bytes) // error("no size for cache level L\($k)")) / 1024 | floor end) as $lkb
	| (if $lkb == 0 then [0, 0] else
	   ([$lkb, 65536] | min * 16) as $lines
	   | [range(8; 33) as $w | ($lines / $w | floor) as $n | select($n >= 1) | ($n | p2floor) as $sets
	      | select($w * $sets % 16 == 0) | [$w * $sets / 16, -$w]] | max
	   | if . == null then error("no cache of 8 to 32 ways and a power of two of sets fits L\($k)'s \($lkb) KiB") else [.[0], -.[1]] end
	   end) as [$kb, $ways]
	| def hold($k): [([1, ($k * (1 - 1 / $s) | round)] | max), $k] | min;
	{model: "calibrated", load_form: $form, cost_ns: $cost, hold_ns: hold($cost),
	   calibrated_cost_ns: $calcost, calibrated_hold_ns: hold($calcost), scaled: ($cost != $calcost),
	   cache_kb: $kb, cache_ways: $ways, shield: (if $kb == 0 then "none" else "L\($k)" end), shield_kb: $lkb,
	   slowed: [$slowed[].level], slowdown: $s};
def cal_model: cal_model(null);

# cal_wakeup: the wake-up probes (.wakeup.probes: "timer", "futex"), each
# {probe, what, none, aligned, split: {wakeups, p50, p99, max: {ns, ci95,
# reps}}, load_ops_per_s, aligned_over_none, split_over_aligned,
# split_over_none: {p50, p99, max: {ratio, ci95}}, missed, timeouts};
# empty for a calibration made without them (--wakeup none, or before
# slb-calibrate had them).
def cal_wakeup: (.wakeup.probes // [])[];

# cal_wakeup_probe($name): the wake-up probe named $name, or empty.
def cal_wakeup_probe($name): first(cal_wakeup | select(.probe == $name));

# cal_wakeup_stats: the statistics of a probe's wake-ups per rep, in order.
def cal_wakeup_stats: "p50", "p99", "max";

# cal_wakeup_check: the document, when its wake-up probes (none is fine)
# hold what the readers use; else an error saying what is missing.
def cal_wakeup_check:
	def need($what; cond): if cond then . else error("no \($what)") end;
	need("wake-up probes (.wakeup: null or an object with probes)"; .wakeup == null
		or ((.wakeup | type) == "object" and (.wakeup.probes | type) == "array"))
	| need("wake-up figures (each probe's ns late p50, p99, max under each load, and split_over_aligned)";
		all(cal_wakeup; (.probe | type) == "string"
			and all(.none, .aligned, .split; all(.[cal_wakeup_stats]; (.ns | type) == "number"))
			and all(.split_over_aligned[cal_wakeup_stats]; (.ratio | type) == "number")));

# cal_wakeup_rows($m): the wake-up probes of this (native) calibration
# beside those of $m (a model's), one row per probe both ran and
# statistic: {probe, stat, native, model: [split/aligned, lo, hi],
# native_ns, model_ns: {none, aligned, split} (ns late, medians over reps)}.
def cal_wakeup_rows($m):
	cal_wakeup as $np | ($m | cal_wakeup_probe($np.probe)) as $mp | cal_wakeup_stats as $s |
	{probe: $np.probe, stat: $s,
	 native: ($np.split_over_aligned[$s] | cal_est(.ratio)), model: ($mp.split_over_aligned[$s] | cal_est(.ratio)),
	 native_ns: ($np | {none: .none[$s].ns, aligned: .aligned[$s].ns, split: .split[$s].ns}),
	 model_ns: ($mp | {none: .none[$s].ns, aligned: .aligned[$s].ns, split: .split[$s].ns})};

# cal_wakeup_dat: the plot data of make calibrate's wake-up plot: a block
# (gnuplot index, two blank lines apart) per probe and statistic, a row per
# load: probe stat load x ns_late lo hi.
def cal_wakeup_dat:
	"# probe stat load x ns_late lo hi (a block per probe and statistic)",
	(cal_wakeup as $p | cal_wakeup_stats as $s |
	 ([["none", 0], ["aligned", 1], ["split", 2]][] as [$l, $x] |
	  [$p.probe, $s, $l, $x] + ($p[$l][$s] | cal_est(.ns)) | map(tostring) | join(" ")), "", "");

# cal_wakeup_series: the blocks of cal_wakeup_dat, named ("timer p50 ..."),
# for the plot's keys.
def cal_wakeup_series: [cal_wakeup as $p | cal_wakeup_stats as $s | "\($p.probe)-\($s)"] | join(" ");
