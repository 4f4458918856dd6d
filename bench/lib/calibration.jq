# SPDX-License-Identifier: GPL-2.0-or-later
# The one reader of slb-calibrate's calibration.json (schema 1), for
# bench/calibrate.sh and bench/validate-model.sh:
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
