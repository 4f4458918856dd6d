// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * slb-stats: the statistics of a study run (bench/study.sh), and the
 * verdict sentences of its report. The rep (one guest boot) is the unit:
 * samples inside a boot are autocorrelated and share its state, so
 * scenarios are compared on one value per rep, never on pooled samples.
 * Per rep: p99 / p99.9 / max raw and corrected for coordinated omission
 * (the periods cyclictest missed while it waited for a late wake-up are
 * reconstructed, lib/hist.h hist_co_correct); a quantile is only used
 * from a rep with at least 10 samples beyond it. Per comparison (split-off
 * / aligned, split-on / baseline, ...): the Hodges-Lehmann ratio of the
 * reps' corrected p99.9 (and p99) with its exact 95 % interval, an exact
 * two-sided rank test over the reps, and an equivalence test (the 95 %
 * interval inside x1/1.2 to x1.2, stricter than TOST's 90 %) before
 * anything is called "no worse".
 * With --against RUN_A the comparisons are per scenario, this run over
 * RUN_A (make compare).
 *
 * Exit status: 0 done, 1 unreadable or mismatched runs, or a rep whose
 * histogram is missing, corrupt or disagrees with cyclictest's cycle count
 * (the output is written all the same, without that rep), 2 usage error.
 */
#include "../lib/reptest.h"
#include "../lib/run.h"
#include "../lib/stats.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define ALPHA 0.05
#define MARGIN 1.2		/* equivalence margin, as a ratio */
#define MIN_BEYOND 10		/* samples a rep needs beyond a quantile to use it */

struct cmp {
	const struct run_scen *a, *b;
	char label[160];
	int na, nb;		/* reps used (enough samples for p99.9) */
	double r_p99, r_p999, ci99[2], ci999[2], ci999_90[2];
	double p;		/* exact rank test over reps, corrected p99.9 */
	int ok, significant, equivalent;
};

static struct run run, base;
static struct cmp cmps[RUN_MAX_SCEN];
static int ncmp;

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: slb-stats [options] RUNDIR\n"
		"Statistics, comparisons and verdicts of a study run (JSON on stdout).\n\n"
		"  -a, --against RUN_A   compare RUNDIR with RUN_A scenario by scenario (B/A)\n"
		"  -p, --plot-data DIR   also write gnuplot data files into DIR\n"
		"  -h, --help            this text\n\n"
		"Exit status: 0 done, 1 unreadable or mismatched runs, or an unusable rep\n"
		"(the output is written without it), 2 usage error.\n");
}

static void jnum(double v)
{
	if (isnan(v) || isinf(v))
		printf("null");
	else
		printf("%.4g", v);
}

/* log of quantile q of each rep of s (corrected) with enough samples; count */
static int rep_logs(const struct run_scen *s, double q, double *v)
{
	int n = 0;

	for (int r = 0; r < s->nreps; r++) {
		const struct run_rep *rp = &s->reps[r];
		long x = q >= 0.999 ? rp->cst.p999 : rp->cst.p99;

		if (rp->have_hist && (double)(rp->cst.samples + rp->cst.overflows) * (1 - q) >= MIN_BEYOND && x > 0)
			v[n++] = log((double)x);
	}
	return n;
}

/*
 * Hodges-Lehmann ratio of b over a on the reps' corrected quantile q, and
 * its interval at level 1 - alpha (NaN when the reps are too few); the
 * reps used go to *na and *nb, their log values to va and vb.
 */
static void rep_ratio(const struct run_scen *a, const struct run_scen *b, double q, double alpha,
		      double *ratio, double ci[2], int *na, int *nb, double *va, double *vb)
{
	double est, lo, hi;

	*na = rep_logs(a, q, va);
	*nb = rep_logs(b, q, vb);
	if (!*na || !*nb)
		return;
	reptest_shift(vb, *nb, va, *na, alpha, &est, &lo, &hi);
	*ratio = exp(est);
	ci[0] = exp(lo);
	ci[1] = exp(hi);
}

static void compare(const struct run_scen *a, const struct run_scen *b, const char *label)
{
	struct cmp *c = &cmps[ncmp++];
	double va[RUN_MAX_REPS], vb[RUN_MAX_REPS], est, lo, hi;
	int na, nb;

	memset(c, 0, sizeof(*c));
	c->a = a;
	c->b = b;
	snprintf(c->label, sizeof(c->label), "%s", label);
	c->r_p99 = c->r_p999 = c->p = NAN;
	c->ci99[0] = c->ci99[1] = c->ci999[0] = c->ci999[1] = c->ci999_90[0] = c->ci999_90[1] = NAN;
	if (!a->good || !b->good)
		return;
	c->ok = 1;
	rep_ratio(a, b, 0.99, ALPHA, &c->r_p99, c->ci99, &na, &nb, va, vb);
	rep_ratio(a, b, 0.999, ALPHA, &c->r_p999, c->ci999, &c->na, &c->nb, va, vb);
	if (!c->na || !c->nb)
		return;
	/* the 90 % interval of the same p99.9 logs (stats.json only) */
	reptest_shift(vb, c->nb, va, c->na, 2 * ALPHA, &est, &lo, &hi);
	c->ci999_90[0] = exp(lo);
	c->ci999_90[1] = exp(hi);
	c->p = reptest_p(vb, c->nb, va, c->na);
	c->significant = c->p < ALPHA;
	/*
	 * Equivalence: the 95 % interval inside the margin (stricter than
	 * TOST's 90 %, and never contradicting the interval printed).
	 */
	c->equivalent = !isnan(c->ci999[0]) && c->ci999[0] >= 1 / MARGIN && c->ci999[1] <= MARGIN;
}

static const struct cmp *find_cmp(const char *a, const char *b)
{
	for (int i = 0; i < ncmp; i++)
		if (cmps[i].ok && !strcmp(cmps[i].a->name, a) && !strcmp(cmps[i].b->name, b))
			return &cmps[i];
	return NULL;
}

/* Each scenario against the control its scenarios.conf names. */
static void within_run_comparisons(void)
{
	char label[160];

	for (int i = 0; i < run.nscen; i++) {
		struct run_scen *b = &run.scen[i], *a = b->control[0] ? run_find(&run, b->control) : NULL;

		if (a && a != b) {
			snprintf(label, sizeof(label), "%s / %s", b->name, a->name);
			compare(a, b, label);
		}
	}
}

/* Median of v[0..n) (sorted in place), or none when n is 0. */
static double median_or(double *v, int n, double none)
{
	if (!n)
		return none;
	qsort(v, (size_t)n, sizeof(double), stats_cmp_double);
	return sorted_percentile(v, n, 0.5);
}

/* Median of the reps' numeric rep.info values for key (>= 0 only); -1 if none. */
static double rep_median(const struct run_scen *s, const char *key)
{
	double v[RUN_MAX_REPS];
	int n = 0;

	for (int i = 0; i < s->nreps; i++) {
		const char *x = kv_get(&s->reps[i].info, key, NULL);

		if (x && *x && atof(x) >= 0)
			v[n++] = atof(x);
	}
	return median_or(v, n, -1);
}

/*
 * Median over reps of the load's rate: load_ops per second of load_end_ms
 * (when it last reported). -1 if unknown.
 */
static double rate_median(const struct run_scen *s)
{
	double v[RUN_MAX_REPS];
	int n = 0;

	for (int i = 0; i < s->nreps; i++) {
		const char *ops = kv_get(&s->reps[i].info, "load_ops", NULL);
		const char *ms = kv_get(&s->reps[i].info, "load_end_ms", NULL);

		if (ops && ms && atof(ops) >= 0 && atof(ms) > 0)
			v[n++] = atof(ops) * 1000 / atof(ms);
	}
	return median_or(v, n, -1);
}

/*
 * Median over reps of the share of cyclictest's periods that completed
 * (ct_cycles of ct_expected): below 100 % the isolated vCPU was starved,
 * which the latency histogram alone does not show. -1 if unknown.
 */
static double cycles_pct(const struct run_scen *s)
{
	double v[RUN_MAX_REPS];
	int n = 0;

	for (int i = 0; i < s->nreps; i++) {
		long long got = kv_get_ll(&s->reps[i].info, "ct_cycles", -1);
		long long want = kv_get_ll(&s->reps[i].info, "ct_expected", -1);

		if (got >= 0 && want > 0)
			v[n++] = 100.0 * (double)got / (double)want;
	}
	return median_or(v, n, -1);
}

static int count_fate(const struct run_scen *s, const char *fate)
{
	int n = 0;

	for (int i = 0; i < s->nreps; i++)
		n += !strcmp(kv_get(&s->reps[i].info, "load_fate", ""), fate);
	return n;
}

static long long max_ops(const struct run_scen *s, const char *fate)
{
	long long m = -1;

	for (int i = 0; i < s->nreps; i++)
		if (!strcmp(kv_get(&s->reps[i].info, "load_fate", ""), fate) &&
		    kv_get_ll(&s->reps[i].info, "load_ops", -1) > m)
			m = kv_get_ll(&s->reps[i].info, "load_ops", -1);
	return m;
}

/*
 * "; traps per vCPU (cpu:count) in rep N: 0:1,1:969,2:0" from the first rep
 * that trapped at all, so that a vCPU on which warn mode lost detection for
 * good shows; "" without such a rep.
 */
static const char *cpu_traps_note(const struct run_scen *s)
{
	static char buf[300];

	for (int i = 0; i < s->nreps; i++) {
		const char *v = kv_get(&s->reps[i].info, "sld_cpu_traps", "none");

		if (strcmp(v, "none") && kv_get_ll(&s->reps[i].info, "sld_traps", 0) > 0) {
			snprintf(buf, sizeof(buf), "; traps per vCPU (cpu:count) in rep %d: %s", s->reps[i].rep, v);
			return buf;
		}
	}
	return "";
}

/*
 * " (p99.9 past the histogram limit in N of M reps: ...)" when a rep's
 * corrected p99.9 lies among the overflows; "" otherwise.
 */
static const char *beyond_note(const struct run_scen *s)
{
	static char buf[200];
	int n = 0;

	for (int i = 0; i < s->nreps; i++)
		n += s->reps[i].have_hist && (s->reps[i].cst.beyond & HIST_BEYOND_P999);
	if (!n)
		return "";
	snprintf(buf, sizeof(buf), " (p99.9 > histogram limit in %d of %d reps: those count as their largest latency, an upper bound)",
		 n, s->good);
	return buf;
}

/* "died of SIGBUS in K of N reps, after T ms (median) and at most M completed split locks" */
static const char *death_text(const struct run_scen *s)
{
	static char buf[200];

	snprintf(buf, sizeof(buf), "died of SIGBUS in %d of %d reps, after %.0f ms (median) and at most %lld completed split locks",
		 count_fate(s, "sigbus"), s->nreps, rep_median(s, "load_end_ms"), max_ops(s, "sigbus"));
	return buf;
}

/* ", significantly higher" / ", significantly lower" / ", no difference shown" */
static const char *sig_word(const struct cmp *c)
{
	if (!c->significant)
		return c->equivalent ? ", equivalent within x1.2" : ", no difference shown";
	return c->r_p999 >= 1 ? ", significantly higher" : ", significantly lower";
}

/* "xR (95 % CI a-b; exact rank test, N vs M reps, p = P)" for c's p99.9. */
static const char *effect(const struct cmp *c)
{
	static char buf[4][200];
	static int k;
	char *b = buf[k++ % 4];

	if (!c->na || !c->nb)
		snprintf(b, 200, "(no rep had the %d samples beyond p99.9 it takes)", MIN_BEYOND);
	else if (isnan(c->ci999[0]))
		snprintf(b, 200, "x%.2f (%d vs %d reps: too few for a 95 %% interval; exact rank test p = %.2g)",
			 c->r_p999, c->nb, c->na, c->p);
	else
		snprintf(b, 200, "x%.2f (95 %% CI %.2f-%.2f; exact rank test over %d vs %d reps, p = %.2g)",
			 c->r_p999, c->ci999[0], c->ci999[1], c->nb, c->na, c->p);
	return b;
}

/* The comparison of scenario s against its control, if any. */
static const struct cmp *role_cmp(const struct run_scen *s)
{
	return s->control[0] ? find_cmp(s->control, s->name) : NULL;
}

/*
 * Verdict sentences from the scenarios' roles (scenarios.conf columns 5
 * and 6), whatever the scenarios are called: expect=harm states what the
 * load did over its control, kill what detection did to the offender,
 * throttle how the warn modes let it live, ratelimit how fast the #DB
 * rate limit let the offender go, cost what detection costs a
 * split-lock-free load, none whether the scenario differs from its
 * control. The decision takes the first harm and the
 * first kill scenario.
 */
static void verdicts(void)
{
	const struct cmp *impact = NULL, *on = NULL, *cost = NULL, *rt = NULL;
	int first = 1, harm = 0, cured = 0, roles = 0;
	char costs[400] = "", risk[300] = "", unmeasured[300];

	printf("  \"verdicts\": [");
#define VERDICT(...) do { printf("%s\n    \"", first ? "" : ","); printf(__VA_ARGS__); printf("\""); first = 0; } while (0)
	for (int i = 0; i < run.nscen; i++) {
		const struct run_scen *sc = &run.scen[i];
		const struct cmp *c = role_cmp(sc);

		roles |= sc->expect[0] != '\0';
		if (!c)
			continue;
		if (!strcmp(sc->expect, "harm")) {
			double pct = cycles_pct(c->b), cpct = cycles_pct(c->a);

			if (!impact)
				impact = c;
			if (c->significant)
				VERDICT("%s: the load on the housekeeping vCPU(s) %s p99.9 latency on the isolated vCPU %s%s over %s%s.",
					sc->name, c->r_p999 >= 1 ? "raised" : "lowered", effect(c), beyond_note(sc),
					sc->control, cpu_traps_note(sc));
			else
				VERDICT("%s: the load on the housekeeping vCPU(s) did not significantly change p99.9 latency on the isolated vCPU over %s: %s%s%s%s.",
					sc->name, sc->control, effect(c), sig_word(c), beyond_note(sc), cpu_traps_note(sc));
			if (pct >= 0 && cpct >= 0)
				VERDICT("%s: cyclictest measured %.0f %% of its periods on the isolated vCPU (%s: %.0f %%): %s.",
					sc->name, pct, sc->control, cpct, pct < 0.9 * cpct ?
					"the missing periods are the long wake-ups themselves (coordinated omission); the figures here count them back in" :
					"it was not starved");
		} else if (!strcmp(sc->expect, "kill")) {
			int killed = count_fate(sc, "sigbus");

			if (!on)
				on = c;
			if (killed)
				VERDICT("%s: the offender %s; p99.9 %s %s: %s%s.", sc->name, death_text(sc),
					c->equivalent ? "stayed within x1.2 of" : !c->significant ? "showed no difference from" :
					c->r_p999 <= 1 ? "was not above" : "stayed above",
					sc->control, effect(c), sig_word(c));
			else
				VERDICT("%s: the offender was not killed (load fates: %s); p99.9 versus %s %s%s.",
					sc->name, sc->fates, sc->control, effect(c), sig_word(c));
		} else if (!strcmp(sc->expect, "rtkill")) {
			if (!rt)
				rt = c;
			if (count_fate(sc, "sigbus"))
				VERDICT("%s: the RT task itself took a split lock with detection on and %s: enabling detection stops such an application, it does not slow it down.",
					sc->name, death_text(sc));
			else
				VERDICT("%s: the RT task that takes split locks was not killed (load fates: %s); p99.9 versus %s %s%s.",
					sc->name, sc->fates, sc->control, effect(c), sig_word(c));
		} else if (!strcmp(sc->expect, "cost")) {
			if (!cost)
				cost = c;
			VERDICT("%s: with detection on, a split-lock-free load changed p99.9 over %s by %s%s.",
				sc->name, sc->control, effect(c), sig_word(c));
		} else if (!strcmp(sc->expect, "ratelimit")) {
			/* Runs from kernels without the buslock counter have no sld_buslock. */
			double db = rep_median(sc, "sld_buslock");
			char dbtext[80] = "bus-lock #DB traps are not counted as #AC traps";

			if (db >= 0)
				snprintf(dbtext, sizeof(dbtext), "%.0f bus-lock #DB traps per rep", db);
			VERDICT("%s: the offender %s (load fates: %s) and was held to %.1f split locks per second (median over reps; %s); p99.9 versus %s %s%s.",
				sc->name, count_fate(sc, "sigbus") ? "was killed in some reps" : "survived", sc->fates,
				rate_median(sc), dbtext, sc->control, effect(c), sig_word(c));
		} else if (!strcmp(sc->expect, "throttle")) {
			VERDICT("%s: the offender %s (load fates: %s) and trapped %.0f times per rep (median)%s; p99.9 versus %s %s%s.",
				sc->name, count_fate(sc, "sigbus") ? "was killed in some reps" : "survived", sc->fates,
				rep_median(sc, "sld_traps"), cpu_traps_note(sc), sc->control, effect(c), sig_word(c));
		} else {
			VERDICT("%s against %s: p99.9 %s%s.", sc->name, sc->control, effect(c), sig_word(c));
		}
	}
	if (!roles)
		VERDICT("No verdicts: the run's scenarios.conf gives no roles (columns control and expect).");
	/* What the run measured beyond the harm and its cure, then what not. */
	if (cost)
		snprintf(costs, sizeof(costs), "What detection cost a split-lock-free load (%s): %s%s. ",
			 cost->b->name, effect(cost), sig_word(cost));
	if (rt && count_fate(rt->b, "sigbus"))
		snprintf(risk, sizeof(risk), "What it risks: an RT task that itself takes a split lock is killed (%s, %d of %d reps). ",
			 rt->b->name, count_fate(rt->b, "sigbus"), rt->b->nreps);
	snprintf(unmeasured, sizeof(unmeasured), "Not measured here: %s%sreal hardware.",
		 cost ? "" : "what detection costs a split-lock-free application, ",
		 risk[0] ? "" : "what detection does to an RT task that itself takes a split lock, ");
	if (impact && on) {
		harm = impact->significant && impact->r_p999 > 1;
		cured = count_fate(on->b, "sigbus") && !(on->significant && on->r_p999 > 1);
		if (harm && cured && on->equivalent)
			VERDICT("Decision: in this run the split-lock load raised the isolated vCPU's p99.9 %s over %s, and with detection on (%s) the offender died and p99.9 stayed within x1.2 of %s: enabling split_lock_detect removed the measured harm. %s%s%s",
				effect(impact), impact->a->name, on->b->name, on->a->name, costs, risk, unmeasured);
		else if (harm && cured)
			VERDICT("Decision: in this run the split-lock load raised the isolated vCPU's p99.9 %s over %s and with detection on the offender died, but the run cannot show p99.9 back within x1.2 of %s (too few reps or too much spread): the harm is shown, its removal is not yet.",
				effect(impact), impact->a->name, on->a->name);
		else if (!harm)
			VERDICT("Decision: this run shows no significant split-lock harm over %s, so it gives no latency reason to enable detection; repeat with more reps or on hardware before deciding.",
				impact->a->name);
		else if (!count_fate(on->b, "sigbus"))
			VERDICT("Decision: split locks harmed the isolated vCPU's latency (%s), but with detection on the offender was not killed (load fates: %s): check that the kernel enabled detection before deciding.",
				effect(impact), on->b->fates);
		else
			VERDICT("Decision: detection killed the offender but latency did not return to %s in this run; investigate before relying on detection alone.",
				on->a->name);
	}
	printf("\n  ]");
#undef VERDICT
}

static void scen_json(const struct run_scen *s, int last)
{
	printf("    {\"name\": \"%s\", \"reps\": %d, \"reps_ok\": %d, \"reps_unusable\": %d, \"load_fates\": \"%s\", ",
	       s->name, s->nreps, s->good, s->unusable, s->fates);
	hist_stats_json(stdout, &s->pst);
	printf(", \"cycles_pct\": %.1f, \"corrected\": {", cycles_pct(s));
	hist_stats_json(stdout, &s->pcst);
	printf("}, \"per_rep\": [");
	for (int r = 0, n = 0; r < s->nreps; r++) {
		const struct run_rep *rp = &s->reps[r];
		uint64_t all = rp->cst.samples + rp->cst.overflows;

		if (!rp->have_hist)
			continue;
		printf("%s{\"rep\": %d, \"p99_us\": %ld, \"p999_us\": %ld, \"max_us\": %ld, "
		       "\"missed_periods\": %lld, \"co_p99_us\": %ld, \"co_p999_us\": %ld, "
		       "\"p999_enough_samples\": %s, \"co_p999_beyond_limit\": %s}", n++ ? ", " : "",
		       rp->rep, rp->st.p99, rp->st.p999, rp->st.max_us, (long long)rp->missed,
		       rp->cst.p99, rp->cst.p999, (double)all * 0.001 >= MIN_BEYOND ? "true" : "false",
		       rp->cst.beyond & HIST_BEYOND_P999 ? "true" : "false");
	}
	printf("]}%s\n", last ? "" : ",");
}

/* ", \"key\": [lo, hi]" with nulls for what is not known */
static void jpair(const char *key, const double v[2])
{
	printf(", \"%s\": [", key);
	jnum(v[0]);
	printf(", ");
	jnum(v[1]);
	printf("]");
}

static void cmp_json(const struct cmp *c, int last)
{
	printf("    {\"label\": \"%s\", \"a\": \"%s\", \"b\": \"%s\", \"reps_a\": %d, \"reps_b\": %d, \"ratio_p99\": ",
	       c->label, c->a->name, c->b->name, c->na, c->nb);
	jnum(c->r_p99);
	jpair("ratio_p99_ci", c->ci99);
	printf(", \"ratio_p999\": ");
	jnum(c->r_p999);
	jpair("ratio_p999_ci", c->ci999);
	jpair("ratio_p999_ci90", c->ci999_90);
	printf(", \"p\": ");
	jnum(c->p);
	printf(", \"significant\": %s, \"equivalent\": %s}%s\n", c->significant ? "true" : "false",
	       c->equivalent ? "true" : "false", last ? "" : ",");
}

/* DIR/NAME.EXT opened for writing, or NULL after saying so on stderr. */
static FILE *open_data(const char *dir, const char *name, const char *ext)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.%s", dir, name, ext);
	f = fopen(path, "w");
	if (!f)
		fprintf(stderr, "slb-stats: cannot write %s: %s\n", path, strerror(errno));
	return f;
}

/* Samples of h in the bin [b0, b0 + width). */
static uint64_t bin_sum(const struct hist *h, size_t b0, size_t width)
{
	uint64_t sum = 0;

	for (size_t b = b0; b < b0 + width && b < h->nbuckets; b++)
		sum += h->count[b];
	return sum;
}

/*
 * DIR/NAME.reps: the same bins as NAME.hist, one column per usable rep
 * (headed "rep<N>", so a plot can draw one curve per rep and show how far
 * the reps spread).
 */
static int write_rep_bins(const char *dir, const struct run_scen *s, size_t top, size_t width)
{
	FILE *f = open_data(dir, s->name, "reps");

	if (!f)
		return -1;
	fprintf(f, "bin_start_us");
	for (int r = 0; r < s->nreps; r++)
		if (s->reps[r].have_hist)
			fprintf(f, " rep%d", s->reps[r].rep);
	fputc('\n', f);
	for (size_t b0 = 0; b0 < top; b0 += width) {
		fprintf(f, "%zu", b0);
		for (int r = 0; r < s->nreps; r++)
			if (s->reps[r].have_hist)
				fprintf(f, " %llu", (unsigned long long)bin_sum(&s->reps[r].h, b0, width));
		fputc('\n', f);
	}
	fclose(f);
	return 0;
}

static int write_plot_data(const char *dir)
{
	FILE *idx, *mx;

	if (mkdir(dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "slb-stats: cannot create %s: %s\n", dir, strerror(errno));
		return -1;
	}
	idx = open_data(dir, "scenarios", "dat");
	mx = open_data(dir, "maxrep", "dat");
	if (!idx || !mx)
		return -1;
	/*
	 * Histogram bins: one width for every scenario (a common x range),
	 * at most ~200 bins over the run's largest bucket, zero-filled so
	 * that a plot never draws a level across empty latencies.
	 */
	size_t top = 1, width;

	for (int i = 0; i < run.nscen; i++)
		for (size_t b = run.scen[i].pooled.nbuckets; b > top; b--)
			if (run.scen[i].pooled.count[b - 1]) {
				top = b;	/* one past the highest non-empty bucket */
				break;
			}
	width = (top + 199) / 200;
	fprintf(idx, "# index name samples max_us p999_us bin_us xmax_us reps\n");
	fprintf(mx, "# index name rep max_us\n");
	for (int i = 0; i < run.nscen; i++) {
		const struct run_scen *s = &run.scen[i];
		uint64_t n = s->pooled.samples + s->pooled.overflows, acc = 0;
		size_t last = SIZE_MAX;	/* the largest non-empty bucket */
		FILE *h, *c, *m;

		fprintf(idx, "%d %s %llu %ld %ld %zu %zu %d\n", i, s->name, (unsigned long long)n, s->pst.max_us,
			s->pst.p999, width, top + width, s->good);
		for (int r = 0; r < s->nreps; r++)
			if (s->reps[r].have_hist)
				fprintf(mx, "%d %s %d %ld\n", i, s->name, s->reps[r].rep, s->reps[r].st.max_us);
		h = open_data(dir, s->name, "hist");
		c = open_data(dir, s->name, "ccdf");
		m = open_data(dir, s->name, "max");
		if (!h || !c || !m)
			return -1;
		fprintf(h, "# bin_start_us samples (bins of %zu us, zero-filled; pooled over %d reps of %s)\n",
			width, s->good, s->name);
		for (size_t b0 = 0; b0 < top; b0 += width)
			fprintf(h, "%zu %llu\n", b0, (unsigned long long)bin_sum(&s->pooled, b0, width));
		/*
		 * at or above: the largest sample keeps a point (1 / n), none is
		 * 0; NAME.max holds that last point alone, for the plot to mark.
		 */
		fprintf(c, "# latency_us fraction_at_or_above\n");
		fprintf(m, "# latency_us fraction_at_or_above (the largest sample)\n");
		for (size_t b = 0; b < s->pooled.nbuckets; b++) {
			if (!s->pooled.count[b])
				continue;
			fprintf(c, "%zu %.9g\n", b, (double)(n - acc) / (double)n);
			acc += s->pooled.count[b];
			last = b;
		}
		if (last != SIZE_MAX)
			fprintf(m, "%zu %.9g\n", last, 1.0 / (double)n);
		fclose(h);
		fclose(c);
		fclose(m);
		if (write_rep_bins(dir, s, top, width))
			return -1;
	}
	fclose(idx);
	fclose(mx);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "against", required_argument, NULL, 'a' },
		{ "plot-data", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *against = NULL, *plot = NULL;
	int c, rc;

	while ((c = getopt_long(argc, argv, "a:p:h", opts, NULL)) != -1) {
		switch (c) {
		case 'a': against = optarg; break;
		case 'p': plot = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	if (run_load_or_report("slb-stats", argv[optind], &run))
		return 1;
	if (against) {
		if (run_load_or_report("slb-stats", against, &base))
			return 1;
		if (base.nscen != run.nscen) {
			fprintf(stderr, "slb-stats: the runs have different scenario sets (%d vs %d scenarios); compare runs of the same matrix\n",
				base.nscen, run.nscen);
			return 1;
		}
		for (int i = 0; i < run.nscen; i++) {
			struct run_scen *a = run_find(&base, run.scen[i].name);

			if (!a) {
				fprintf(stderr, "slb-stats: scenario '%s' is not in %s; compare runs of the same matrix\n",
					run.scen[i].name, against);
				return 1;
			}
			compare(a, &run.scen[i], run.scen[i].name);
		}
	} else {
		within_run_comparisons();
	}
	if (plot && write_plot_data(plot))
		return 1;
	printf("{\n  \"unit\": \"us\",\n  \"emulated\": true,\n");
	printf("  \"method\": {\"unit\": \"the rep (one guest boot): one value per rep, never pooled samples\", "
	       "\"values\": \"per-rep p99 and p99.9 corrected for coordinated omission (missed cyclictest periods reconstructed); a rep counts for a quantile only with %d samples beyond it\", "
	       "\"ci\": \"Hodges-Lehmann ratio of the reps' values with its exact distribution-free 95 %% interval (none when the reps are too few: it takes %d reps, half per side, to exist)\", "
	       "\"test\": \"exact two-sided permutation test of Mann-Whitney U over the reps\", "
	       "\"significant\": \"p < alpha\", \"equivalent\": \"the 95 %% interval of the p99.9 ratio inside x%.3f to x%.1f (an equivalence test stricter than TOST's 90 %%)\", \"alpha\": %.2f},\n",
	       MIN_BEYOND, reptest_min_reps(ALPHA), 1 / MARGIN, MARGIN, ALPHA);
	if (against)
		printf("  \"against\": \"%s\",\n", against);
	printf("  \"scenarios\": [\n");
	for (int i = 0; i < run.nscen; i++)
		scen_json(&run.scen[i], i + 1 == run.nscen);
	printf("  ],\n  \"comparisons\": [\n");
	for (int i = 0, n = 0, last = 0; i < ncmp; i++) {
		if (!cmps[i].ok)
			continue;
		for (last = i + 1; last < ncmp && !cmps[last].ok; last++)
			;
		cmp_json(&cmps[i], last >= ncmp);
		n++;
	}
	printf("  ],\n");
	if (!against)
		verdicts();
	else
		printf("  \"verdicts\": []");
	printf("\n}\n");
	rc = run_exit_status("slb-stats", &run) | (against ? run_exit_status("slb-stats", &base) : 0);
	run_free(&run);
	if (against)
		run_free(&base);
	return rc;
}
