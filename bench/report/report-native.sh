# SPDX-License-Identifier: GPL-2.0-or-later
# The report's parts for a native run (TARGET=native or ssh:..., manifest
# "emulated": false): the platform sentence that opens the Decision, the
# banner, the setup (the target, its kernel and split-lock detection state
# as read), the skipped scenarios with why and which boot runs them, the
# caveats of real time. Sourced by
# bench/report/report.sh; each function prints Markdown and nothing for a guest
# run. MF is the manifest (or {}), RUN the run directory.

# report_is_native MF: the run ran natively. Read once per MF (a report
# asks about ten times; a jq costs some 17 ms of CPU): ask once outside a
# subshell first, or each subshell reads it again.
declare -gA report_emulated=()
report_is_native() {
	[ -n "${report_emulated[$1]+set}" ] || report_emulated[$1]=$(jq -r '.emulated' "$1" 2>/dev/null)
	[ "${report_emulated[$1]}" = false ]
}

report_native_banner() {
	jq -r '"**Native, real time:** every latency below is real time on the running kernel of \(.target.hostname) (\(.target.cpu), kernel \(.target.kernel)\(if .target.preempt_rt then ", PREEMPT_RT" else ", not PREEMPT_RT" end)), no emulator, measured on CPU \(.target.measured_cpu)\(if .target.measured_isolated then "" else " (not isolated)" end).\(if .target.hypervisor then " This machine is a virtual machine (hypervisor flag set): real hardware through a hypervisor, whose scheduling of the vCPUs is in every figure." else "" end) Headings say \"vCPU\" for the measured CPU."' "$1"
}

# report_native_platform MF: the machine the figures come from, one
# sentence that opens the report's Decision.
report_native_platform() {
	jq -r '"Native, real time on \(.target.hostname) (\(.target.cpu), kernel \(.target.kernel)\(if .target.preempt_rt then ", PREEMPT_RT" else ", not PREEMPT_RT" end))\(if .target.hypervisor then ", a virtual machine (hypervisor flag set): real split locks through a hypervisor" else "" end), no emulator."' "$1"
}

report_native_setup() {
	report_is_native "$1" || return 0
	jq -r '
		"- date: \(.date // "?"); target: \(.target.name) (\(.target.hostname)), \(.target.cpu), CPUs \(.target.cpus_online), isolated: \(if .target.cpus_isolated == "" then "none" else .target.cpus_isolated end), nohz_full: \(if .target.nohz_full == "" then "none" else .target.nohz_full end)\(if .target.hypervisor then "; virtual machine (\(.target.virt))" else "" end)",
		"- kernel: \(.target.kernel) `\(.target.kernel_version)`; command line `\(.target.cmdline)`",
		"- load average when the study started: \(.target.loadavg_at_start // "?") (/proc/loadavg; per rep: rep<k>/files/loadavg.before, .after): what else ran on the machine is in the figures",
		"- split-lock detection: **\(.target.split_lock.mode)** (read from: \(.target.split_lock.read_from)); CPU flags split_lock_detect \(if .target.split_lock.cpu_split_lock_detect then "yes" else "no" end), bus_lock_detect \(if .target.split_lock.cpu_bus_lock_detect then "yes" else "no" end); kernel.split_lock_mitigate \(.target.split_lock.split_lock_mitigate); nothing was changed or loaded in the kernel",
		"- cyclictest \(.target.cyclictest_version) (SCHED_FIFO 95, -m) on CPU \(.target.measured_cpu), \(.params.duration_s) s per rep at \(.params.interval_us) us, after \(.params.warmup_s) s of load; load on CPU(s) \(.params.load_cpus) \(if (.params.load_rate // 0) == 0 then "flat out" else "at \(.params.load_rate) ops/s per thread" end); \(.params.reps) reps per scenario, interleaved, one at a time",
		(if .target.kind == "ssh" then "- run over ssh from \(.host.name) (\(.host.cpu), kernel \(.host.kernel))" else empty end)' "$1"
}

# report_skipped RUN: the scenarios the target could not run as written.
report_skipped() {
	local f=$1/skipped.txt
	[ -s "$f" ] || return 0
	echo "## Skipped scenarios"
	echo
	echo "Not run on this target: the running kernel (or the machine) is not what the"
	echo "scenario's kernel options, sysctls or machine column ask for, and the study"
	echo "changes no kernel parameter. One run per boot, then \`make compare\`."
	echo
	echo "| scenario | why | what would run it |"
	echo "| --- | --- | --- |"
	awk -F'\t' '{ printf "| %s | %s | %s |\n", $1, $2, $3 }' "$f"
	echo
	# One line per boot option that would run some of them.
	awk -F'\t' '{ n = split($3, w, "; "); for (i = 1; i <= n; i++) if (w[i] ~ /^boot with /) { o = substr(w[i], 11); s[o] = s[o] (s[o] ? ", " : "") $1 } }
		END { for (o in s) printf "- next boot: `%s` runs %s; then `make compare A=%s B=<that run>`\n", o, s[o], run }' run="$(basename "$1")" "$f" | sort
	awk -F'\t' '$3 !~ /boot with / { s = s (s ? ", " : "") $1 } END { if (s) printf "- no boot of this machine runs %s (see why above)\n", s }' "$f"
	echo
}

report_native_caveats() {
	jq -r '"Real time on \(.target.hostname), measured by cyclictest on CPU \(.target.measured_cpu) while slb-load issued LOCKed operations on CPU(s) \(.params.load_cpus)\(if (.params.load_rate // 0) == 0 then "" else " at \(.params.load_rate) per second per thread" end). What a split lock costs here is this machine'"'"'s: its bus or interconnect\(if .target.hypervisor then ", and the hypervisor under it (other guests share the hardware; their load and the host'"'"'s scheduling of these vCPUs are in the figures and vary from run to run)" else "" end). \(if .target.preempt_rt then "" else "The kernel is not PREEMPT_RT, so latencies include non-preemptible kernel sections that an RT kernel would cut short. " end)\(if .target.measured_isolated then "" else "The measured CPU is not isolated: other tasks and interrupts run there too. " end)Split-lock detection was \(.target.split_lock.mode) in this boot; a scenario that needs another mode was skipped, not run in the wrong one: compare runs of different boots with make compare."' "$1"
}
