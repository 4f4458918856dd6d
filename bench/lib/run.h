/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reader of a study run directory (bench/study.sh): scenarios.list, and
 * per scenario rep1, rep2, ... each with rep.info (scripts/rep-info.sh)
 * and a histogram of what the rep measured (run_set_measure: cyclictest's
 * files/hist.txt by default). Reps whose guest run was not ok, or whose histogram
 * is missing or malformed, are kept but not pooled ("good" counts the
 * pooled ones).
 */
#ifndef SLB_RUN_H
#define SLB_RUN_H

#include "hist.h"
#include "kv.h"

#define RUN_MAX_SCEN 64
#define RUN_MAX_REPS 100
#define RUN_MAX_CPUS 8	/* measured CPUs of one rep: cyclictest threads */

struct run_rep {
	int rep, have_hist;
	/*
	 * The rep's seed (rep.info seed; outcome.json's, virtual clock only):
	 * rep k of every scenario runs with seed k, so reps with the same seed
	 * are pairs. -1 when unknown (wall clock, or a run from before).
	 */
	long long seed;
	struct kv info;
	struct hist h;
	struct hist_stats st;
	/*
	 * Coordinated-omission corrected (hist_co_correct with the rep's
	 * cyclictest interval, rep.info ct_interval_us); missed = periods
	 * reconstructed, -1 when the interval is unknown (co = h then).
	 */
	struct hist co;
	struct hist_stats cst;
	int64_t missed;
};

struct run_scen {
	char name[64];
	/*
	 * good: reps with a usable histogram; unusable: reps whose guest run
	 * ended ok but whose histogram is missing, corrupt or disagrees with
	 * cyclictest's cycle count (warned about on stderr).
	 */
	int nreps, good, unusable;
	struct run_rep *reps;
	struct hist pooled, pooled_co;
	struct hist_stats pst, pcst;
	/*
	 * Per measured CPU, when cyclictest measured more than one (a
	 * histogram column each): ncpu of them (0 for one CPU), cpu[k] the
	 * CPU of column k (rep.info ct_cpus; -1 unknown), pooled_cpu[k] its
	 * samples over the good reps (not corrected), worst_cpu the column
	 * with the highest p99.9 (then max); -1 when ncpu is 0.
	 */
	int ncpu, worst_cpu;
	int cpu[RUN_MAX_CPUS];
	struct hist pooled_cpu[RUN_MAX_CPUS];
	struct hist_stats pst_cpu[RUN_MAX_CPUS];
	char fates[256];		/* "sigbus x2, completed x1" */
	/*
	 * Roles, from the run's scenarios.conf (columns 5 and 6): the
	 * scenario this one is judged against ("" when none) and what the
	 * study expects of it: none, harm, kill, throttle, ratelimit, cost or
	 * rtkill ("" unknown);
	 * what: column 7, the scenario's own words.
	 */
	char control[64], expect[16], what[160];
	/*
	 * Columns 2, 3, 4 and 8: kernel command line, load, sysctls and guest
	 * (vcpus=, kernel=, cpuflag=), to say what differs from the control.
	 */
	char kopts[160], load[64], sysctls[160], guest[160];
};

struct run {
	int nscen;
	struct run_scen scen[RUN_MAX_SCEN];
};

/*
 * The histogram run_load reads of each rep (study.sh --measure): cyclictest
 * (files/hist.txt, the default), timerlat-irq or timerlat-thread (rtla
 * timerlat's IRQ and thread latency, files/timerlat-irq.txt and
 * files/timerlat-thread.txt, slb-timerlat's). 0, or -1 for another name.
 */
int run_set_measure(const char *name);
/* The measure set ("cyclictest" by default); the names allowed, space-separated. */
const char *run_measure(void);
#define RUN_MEASURES "cyclictest timerlat-irq timerlat-thread"

/* 0, or -1 with a message in err. */
int run_load(const char *dir, struct run *r, char *err, size_t errlen);

/* run_load, the error printed as "prog: error" on stderr; 0 or -1. */
int run_load_or_report(const char *prog, const char *dir, struct run *r);

/*
 * The tools' exit status after their output: 0, or 1 with a line on
 * stderr when some rep was unusable (the output says which were pooled).
 */
int run_exit_status(const char *prog, const struct run *r);
void run_free(struct run *r);

/* The scenario called name, or NULL. */
struct run_scen *run_find(struct run *r, const char *name);

#endif
