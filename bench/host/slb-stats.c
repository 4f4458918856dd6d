// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * slb-stats: the statistics of a study run (bench/study.sh), and the
 * verdict sentences of its report. The rep (one guest boot) is the unit:
 * samples inside a boot are autocorrelated and share its state, so
 * scenarios are compared on one value per rep, never on pooled samples.
 * Per rep: p50 / p99 / p99.9 / max raw and corrected for coordinated omission
 * (the periods cyclictest missed while it waited for a late wake-up are
 * reconstructed, lib/hist.h hist_co_correct); a quantile is only used
 * from a rep with at least 10 samples beyond it. Per comparison (split-off
 * / aligned, split-on / baseline, ...): paired by seed where rep k of both
 * scenarios ran with seed k (the design of bench/study.sh), else unpaired,
 * and each comparison says which: the Hodges-Lehmann ratio of the reps'
 * corrected p99.9 (and p99) with its exact 95 % interval (Walsh averages
 * of the per-pair log-ratios when paired), an exact two-sided rank test
 * (signed-rank when paired), and an equivalence test (the 95 % interval
 * inside x1/1.2 to x1.2, stricter than TOST's 90 %) before anything is
 * called "no worse", only where the 1 us histogram bins resolve x1.2 at
 * that latency ("not resolvable at this resolution" otherwise). Beyond
 * p99.9, per rep the max and the samples above the control's maximum (or
 * --deadline), tested the same way. Inconclusive comparisons say how many
 * reps would settle them. Where every pair holds the same two values (the
 * virtual clock is deterministic) the comparison says so in words ("all 7
 * pairs: 60 against 3 us", JSON "tie"), and two medians one histogram bin
 * apart are named as one bin ("one_bin"), not as a significant difference.
 * Each comparison's "effect" is its p99.9 sentence, as the verdicts word
 * it, for the report's headline.
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

/* What a comparison compares, one value per rep. */
enum metric {
	M_P99,		/* log of the corrected p99 */
	M_P999,		/* log of the corrected p99.9 */
	M_MAX,		/* log of the rep's largest latency */
	M_ABOVE,	/* samples (corrected) above the tail threshold */
};

/*
 * The inference on one metric of b over a. Paired when rep k of both
 * scenarios ran with the same seed (every rep's seed known, the same
 * seeds on both sides, each once): then on the per-pair differences
 * (signed-rank test, Walsh-average Hodges-Lehmann); else unpaired (rank
 * test, Hodges-Lehmann of all differences), and why says why.
 */
struct infer {
	int na, nb, paired, ties, identical;
	double est, lo, hi, lo90, hi90, p;	/* b - a (log: a log-ratio) */
	double sd;		/* of the differences (paired), else pooled */
	double va[RUN_MAX_REPS], vb[RUN_MAX_REPS];	/* per rep, in us or samples; pairs in seed order */
	long long seed[RUN_MAX_REPS];	/* of the pairs */
	double amin, amax, bmin, bmax, amed, bmed;
	char why[200];
};

struct cmp {
	const struct run_scen *a, *b;
	char label[160];
	int na, nb;		/* reps used (enough samples for p99.9) */
	double r_p99, r_p999, ci99[2], ci999[2], ci999_90[2];
	double p;		/* exact test over reps (signed-rank when paired), corrected p99.9 */
	int ok, significant, equivalent;
	/*
	 * resolvable: one histogram bin next to the smaller of the two
	 * scenarios' median p99.9 (floor_us) stays inside the margin, so that
	 * "within x1.2" can be told at all; resolution = bin / floor_us.
	 */
	int resolvable;
	double floor_us, resolution;
	int need_detect, need_equiv;	/* pairs (or reps per side) for x1.2; 0 unknown */
	struct infer q99, q999, mx, above;
	double tail_us;		/* samples above this count as the tail */
	int tail_deadline;	/* tail_us is DEADLINE_US (else the control's maximum) */
	int tail_significant;
	/*
	 * tie: paired, and every pair holds the same two values (a deterministic
	 * emulator): tie_a_us against tie_b_us in all pairs, said in words.
	 * one_bin: the two median p99.9 one histogram bin apart.
	 */
	int tie, one_bin;
	double tie_a_us, tie_b_us;
};

static struct run run, base;
static struct cmp cmps[RUN_MAX_SCEN];
static int ncmp;
static long deadline_us;	/* --deadline; 0: the control's maximum */

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: slb-stats [options] RUNDIR\n"
		"Statistics, comparisons and verdicts of a study run (JSON on stdout).\n\n"
		"  -a, --against RUN_A   compare RUNDIR with RUN_A scenario by scenario (B/A)\n"
		"  -d, --deadline US     count each rep's samples above US as its tail (default 0:\n"
		"                        above the control's largest latency)\n"
		"  -m, --measure M       the reps' histograms: cyclictest (default), timerlat-irq\n"
		"                        or timerlat-thread (rtla timerlat, study.sh --measure)\n"
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

/* Samples of h (corrected) above thr us, overflows included. */
static double count_above(const struct hist *h, double thr)
{
	uint64_t n = h->overflows;

	for (size_t b = thr < 0 ? 0 : (size_t)thr + 1; b < h->nbuckets; b++)
		n += h->count[b];
	return (double)n;
}

/*
 * The periods a rep counts for the samples-beyond-a-quantile rule: its
 * corrected samples, or the periods cyclictest was asked for
 * (ct_expected) when more. A wake-up late by less than two intervals
 * costs a period that HdrHistogram's correction does not reconstruct, and
 * a rule on measured samples alone would drop exactly the reps whose
 * long wake-ups cost periods (the worst ones): a bias.
 */
static double rep_periods(const struct run_rep *rp)
{
	double n = (double)(rp->cst.samples + rp->cst.overflows);
	long long want = kv_get_ll(&rp->info, "ct_expected", -1);

	return (double)want > n ? (double)want : n;
}

/*
 * Metric m of each rep of s that has it (a quantile only from a rep with
 * enough samples beyond it): values into v (logs for M_P99, M_P999,
 * M_MAX), seeds into seed; the count.
 */
static int collect(const struct run_scen *s, enum metric m, double thr, double *v, long long *seed)
{
	int n = 0;

	for (int r = 0; r < s->nreps; r++) {
		const struct run_rep *rp = &s->reps[r];
		double q = m == M_P99 ? 0.99 : 0.999, x;

		if (!rp->have_hist)
			continue;
		if (m == M_P99 || m == M_P999) {
			x = (double)(m == M_P999 ? rp->cst.p999 : rp->cst.p99);
			if (rep_periods(rp) * (1 - q) < MIN_BEYOND || x <= 0)
				continue;
			x = log(x);
		} else if (m == M_MAX) {
			if (rp->cst.max_us <= 0)
				continue;
			x = log((double)rp->cst.max_us);
		} else {
			x = count_above(&rp->co, thr);
		}
		seed[n] = rp->seed;
		v[n++] = x;
	}
	return n;
}

/*
 * Whether a and b (na == nb values with their seeds) are pairs: every
 * seed known, each once, the same on both sides; then b is put in a's
 * seed order. Else why says why not.
 */
static int pair_up(const long long *sa, double *vb, long long *sb, int na, int nb, char *why, size_t len)
{
	double v[RUN_MAX_REPS];

	if (na != nb) {
		snprintf(why, len, "the reps differ in number (%d vs %d)", nb, na);
		return 0;
	}
	for (int i = 0; i < na; i++)
		if (sa[i] < 0 || sb[i] < 0) {
			snprintf(why, len, "seeds not recorded (a wall-clock run, or one from before rep.info had them)");
			return 0;
		}
	for (int i = 0; i < na; i++) {
		int found = -1;

		for (int j = 0; j < na; j++) {
			if (j != i && sa[j] == sa[i]) {
				snprintf(why, len, "seed %lld used twice", sa[i]);
				return 0;
			}
			if (sb[j] == sa[i])
				found = found < 0 ? j : -2;
		}
		if (found < 0) {
			snprintf(why, len, "the seeds do not match (seed %lld)", sa[i]);
			return 0;
		}
		v[i] = vb[found];
	}
	for (int i = 0; i < na; i++) {
		vb[i] = v[i];
		sb[i] = sa[i];
	}
	return 1;
}

static double median_of(const double *v, int n)
{
	double s[RUN_MAX_REPS];

	if (!n)
		return NAN;
	for (int i = 0; i < n; i++)
		s[i] = v[i];
	qsort(s, (size_t)n, sizeof(double), stats_cmp_double);
	return sorted_percentile(s, n, 0.5);
}

static void infer(const struct run_scen *a, const struct run_scen *b, enum metric m, double thr, struct infer *r)
{
	long long sa[RUN_MAX_REPS], sb[RUN_MAX_REPS];
	double va[RUN_MAX_REPS], vb[RUN_MAX_REPS], d[2 * RUN_MAX_REPS], e;
	int logs = m != M_ABOVE;

	memset(r, 0, sizeof(*r));
	r->est = r->lo = r->hi = r->lo90 = r->hi90 = r->p = r->sd = NAN;
	r->na = collect(a, m, thr, va, sa);
	r->nb = collect(b, m, thr, vb, sb);
	if (!r->na || !r->nb)
		return;
	r->paired = pair_up(sa, vb, sb, r->na, r->nb, r->why, sizeof(r->why));
	if (r->paired) {
		r->identical = 1;
		for (int i = 0; i < r->na; i++) {
			d[i] = vb[i] - va[i];
			r->identical &= d[i] == 0;
			r->ties |= d[i] == 0;	/* a zero difference is a tie at zero */
			r->seed[i] = sa[i];
		}
		r->ties |= reptest_ties(d, r->na);
		reptest_walsh(d, r->na, ALPHA, &r->est, &r->lo, &r->hi);
		reptest_walsh(d, r->na, 2 * ALPHA, &e, &r->lo90, &r->hi90);
		r->p = reptest_signed_p(d, r->na);
		r->sd = reptest_sd(d, r->na);
	} else {
		double sda = reptest_sd(va, r->na), sdb = reptest_sd(vb, r->nb);

		for (int i = 0; i < r->na; i++)
			d[i] = va[i];
		for (int i = 0; i < r->nb; i++)
			d[r->na + i] = vb[i];
		r->ties = reptest_ties(d, r->na + r->nb);
		reptest_shift(vb, r->nb, va, r->na, ALPHA, &r->est, &r->lo, &r->hi);
		reptest_shift(vb, r->nb, va, r->na, 2 * ALPHA, &e, &r->lo90, &r->hi90);
		r->p = reptest_p(vb, r->nb, va, r->na);
		r->sd = r->na + r->nb > 2 ? sqrt(((r->na - 1) * sda * sda + (r->nb - 1) * sdb * sdb) / (r->na + r->nb - 2)) : 0;
	}
	for (int i = 0; i < r->na; i++)
		r->va[i] = logs ? exp(va[i]) : va[i];
	for (int i = 0; i < r->nb; i++)
		r->vb[i] = logs ? exp(vb[i]) : vb[i];
	r->amin = r->amax = r->va[0];
	r->bmin = r->bmax = r->vb[0];
	for (int i = 0; i < r->na; i++) {
		r->amin = fmin(r->amin, r->va[i]);
		r->amax = fmax(r->amax, r->va[i]);
	}
	for (int i = 0; i < r->nb; i++) {
		r->bmin = fmin(r->bmin, r->vb[i]);
		r->bmax = fmax(r->bmax, r->vb[i]);
	}
	r->amed = median_of(r->va, r->na);
	r->bmed = median_of(r->vb, r->nb);
}

/* The largest latency of any usable rep of s (its tail threshold as a control). */
static long scen_max(const struct run_scen *s)
{
	long m = -1;

	for (int r = 0; r < s->nreps; r++)
		if (s->reps[r].have_hist && s->reps[r].cst.max_us > m)
			m = s->reps[r].cst.max_us;
	return m;
}

static void compare(const struct run_scen *a, const struct run_scen *b, const char *label)
{
	struct cmp *c = &cmps[ncmp++];
	const struct infer *q = &c->q999;

	memset(c, 0, sizeof(*c));
	c->a = a;
	c->b = b;
	snprintf(c->label, sizeof(c->label), "%s", label);
	c->r_p99 = c->r_p999 = c->p = c->floor_us = c->resolution = NAN;
	c->ci99[0] = c->ci99[1] = c->ci999[0] = c->ci999[1] = c->ci999_90[0] = c->ci999_90[1] = NAN;
	if (!a->good || !b->good)
		return;
	c->ok = 1;
	infer(a, b, M_P99, 0, &c->q99);
	c->r_p99 = exp(c->q99.est);
	c->ci99[0] = exp(c->q99.lo);
	c->ci99[1] = exp(c->q99.hi);
	infer(a, b, M_P999, 0, &c->q999);
	c->na = q->na;
	c->nb = q->nb;
	/* the tail: max and samples above the control's maximum (or the deadline) */
	c->tail_deadline = deadline_us > 0;
	c->tail_us = deadline_us > 0 ? (double)deadline_us : (double)scen_max(a);
	infer(a, b, M_MAX, 0, &c->mx);
	infer(a, b, M_ABOVE, c->tail_us, &c->above);
	c->tail_significant = c->mx.p < ALPHA || c->above.p < ALPHA;
	if (!c->na || !c->nb)
		return;
	c->r_p999 = exp(q->est);
	c->ci999[0] = exp(q->lo);
	c->ci999[1] = exp(q->hi);
	c->ci999_90[0] = exp(q->lo90);
	c->ci999_90[1] = exp(q->hi90);
	c->p = q->p;
	c->significant = c->p < ALPHA;
	c->tie = q->paired && q->amax - q->amin < 1e-6 && q->bmax - q->bmin < 1e-6;
	c->tie_a_us = q->amed;
	c->tie_b_us = q->bmed;
	c->one_bin = fabs(fabs(q->bmed - q->amed) - HIST_BIN_US) < 1e-6;
	/*
	 * Resolution: with 1 us bins at a 3 us floor the nearest values are 2
	 * and 4 (x0.67, x1.33), both outside the margin: "within x1.2" would
	 * only say that most values were equal. Equivalence is judged only
	 * where the bins next to the value stay inside the margin.
	 */
	c->floor_us = fmin(q->amed, q->bmed);
	c->resolution = HIST_BIN_US / c->floor_us;
	c->resolvable = c->floor_us > HIST_BIN_US && (c->floor_us + HIST_BIN_US) / c->floor_us <= MARGIN + 1e-9 &&
			(c->floor_us - HIST_BIN_US) / c->floor_us >= 1 / MARGIN - 1e-9;
	/*
	 * Equivalence: the 95 % interval inside the margin (stricter than
	 * TOST's 90 %, and never contradicting the interval printed).
	 */
	c->equivalent = c->resolvable && !isnan(c->ci999[0]) && c->ci999[0] >= 1 / MARGIN && c->ci999[1] <= MARGIN;
	if (!c->significant && !c->equivalent) {
		c->need_detect = reptest_reps_needed(q->sd, log(MARGIN), REPTEST_Z_DETECT, q->paired);
		c->need_equiv = c->resolvable ? reptest_reps_needed(q->sd, log(MARGIN), REPTEST_Z_EQUIV, q->paired) : 0;
	}
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
 * The share of cyclictest's periods that completed over all reps of s
 * (the sums of ct_cycles and ct_expected): below 100 % the isolated vCPU
 * was starved, which the latency histogram alone does not show. -1 if
 * unknown; *complete says whether every period was measured.
 */
static double cycles_pct(const struct run_scen *s, int *complete)
{
	long long got = 0, want = 0;

	for (int i = 0; i < s->nreps; i++) {
		long long g = kv_get_ll(&s->reps[i].info, "ct_cycles", -1);
		long long w = kv_get_ll(&s->reps[i].info, "ct_expected", -1);

		if (g >= 0 && w > 0) {
			got += g;
			want += w;
		}
	}
	if (complete)
		*complete = got == want;
	return want ? 100.0 * (double)got / (double)want : -1;
}

/*
 * A percentage as text, to two decimals without trailing zeros, and never
 * rounded up to 100 when a period is missing: 59992 of 60000 is "99.99".
 */
static const char *pct_text(double pct, int complete)
{
	static char buf[4][32];
	static int k;
	char *b = buf[k++ % 4], *e;

	if (pct < 0)
		return "?";
	if (complete)
		return "100";
	snprintf(b, 32, "%.2f", pct);
	if (!strcmp(b, "100.00"))
		snprintf(b, 32, "99.99");
	e = b + strlen(b);
	while (e[-1] == '0')
		*--e = '\0';
	if (e[-1] == '.')
		e[-1] = '\0';
	return b;
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

/*
 * What cyclictest did not see of a killed offender: it starts after the
 * load's warm-up, so the time before the kill is not measured; with no
 * completed split lock that harm is nil, since the #AC is a fault.
 */
static const char *before_kill_text(const struct run_scen *s)
{
	static char buf[400];
	long long ops = max_ops(s, "sigbus");

	if (ops == 0)
		snprintf(buf, sizeof(buf), "The harm before the kill was not measured (cyclictest starts after the load's warm-up, the offender died %.0f ms after its start) and is nil: the #AC is a fault, raised before the locked access executes, so none of its split locks took the bus (0 completed).",
			 rep_median(s, "load_end_ms"));
	else
		snprintf(buf, sizeof(buf), "The harm before the kill was not measured (cyclictest starts after the load's warm-up): up to %lld split locks completed before it.",
			 ops);
	return buf;
}

/* "pairs" or "reps per side": the unit of the reps needed */
static const char *need_unit(const struct cmp *c)
{
	return c->q999.paired ? "pairs" : "reps per side";
}

/*
 * ", significantly higher" / ", significantly lower" / ", equivalent
 * within x1.2" / ", no difference shown; equivalence ... not resolvable
 * at this resolution (...)" / ", inconclusive: ... about N pairs would
 * detect x1.2 ..."
 */
static const char *sig_word(const struct cmp *c)
{
	static char buf[4][400];
	static int k;
	char *b = buf[k++ % 4], same[80] = "";

	if (c->significant && c->one_bin) {
		snprintf(b, 400, ", one %d us bin apart (%.0f vs %.0f us): below the histogram's resolution", HIST_BIN_US,
			 c->q999.bmed, c->q999.amed);
		return b;
	}
	if (c->significant)
		return c->r_p999 >= 1 ? ", significantly higher" : ", significantly lower";
	if (c->equivalent)
		return ", equivalent within x1.2";
	if (!c->na || !c->nb)
		return "";
	if (c->q999.paired && c->q999.identical && !c->tie)
		snprintf(same, sizeof(same), " (the same value in all %d pairs)", c->na);
	if (!c->resolvable) {
		snprintf(b, 400, ", no difference shown%s; equivalence within x%.1f is not resolvable at this resolution (%d us bins at %.0f us: one bin is x%.2f)",
			 same, MARGIN, HIST_BIN_US, c->floor_us, 1 + c->resolution);
		return b;
	}
	if (c->need_detect > 0)
		snprintf(b, 400, ", inconclusive: neither a difference nor equivalence within x%.1f shown; about %d %s would detect x%.1f and %d would show equivalence within x%.1f (80 %% power, normal approximation from the observed spread)",
			 MARGIN, c->need_detect, need_unit(c), MARGIN, c->need_equiv, MARGIN);
	else
		snprintf(b, 400, ", inconclusive: neither a difference nor equivalence within x%.1f shown", MARGIN);
	return b;
}

/*
 * "x99 (95 % CI a-b; exact signed-rank test over 6 pairs, p = P)" for c's
 * p99.9, or where every pair holds the same two values (a tie) "x20 (all
 * 7 pairs: 60 against 3 us, same seed)": an interval of 20.00-20.00 would
 * state a precision the values do not have.
 */
static const char *effect(const struct cmp *c)
{
	static char buf[4][400];
	static int k;
	char *b = buf[k++ % 4], design[300];
	const struct infer *q = &c->q999;

	if (q->paired)
		snprintf(design, sizeof(design), "exact signed-rank test over %d pairs (same seed)", c->na);
	else
		snprintf(design, sizeof(design), "exact rank test over %d vs %d reps, unpaired: %s", c->nb, c->na, q->why);
	if (!c->na || !c->nb)
		snprintf(b, 400, "(no rep had the %d samples beyond p99.9 it takes)", MIN_BEYOND);
	else if (c->tie)
		snprintf(b, 400, "x%.3g (all %d pairs: %.0f against %.0f us, same seed)", c->r_p999, c->na, c->tie_b_us,
			 c->tie_a_us);
	else if (isnan(c->ci999[0]) && q->paired)
		snprintf(b, 400, "x%.2f (%d pairs: too few for a 95 %% interval; %s, p = %.2g)", c->r_p999, c->na, design, c->p);
	else if (isnan(c->ci999[0]))
		snprintf(b, 400, "x%.2f (%d vs %d reps: too few for a 95 %% interval; %s, p = %.2g)", c->r_p999, c->nb,
			 c->na, design, c->p);
	else
		snprintf(b, 400, "x%.2f (95 %% CI %.2f-%.2f; %s, p = %.2g)", c->r_p999, c->ci999[0], c->ci999[1], design, c->p);
	return b;
}

/*
 * "; beyond p99.9 (above 3 us, aligned's maximum): max 3-6 us per rep vs
 * 3-3 (p = 0.031), 0-480 samples above per rep vs 0-0 (p = 0.031): the
 * tail is longer" -- what a p99.9 of 10000 samples cannot see.
 */
static const char *tail_text(const struct cmp *c)
{
	static char buf[4][600];
	static int k;
	char *b = buf[k++ % 4], thr[120];
	const struct infer *m = &c->mx, *x = &c->above;

	if (!m->na || !m->nb)
		return "";
	if (c->tail_deadline)
		snprintf(thr, sizeof(thr), "above %.0f us, the deadline DEADLINE_US", c->tail_us);
	else
		snprintf(thr, sizeof(thr), "above %.0f us, %s's maximum", c->tail_us, c->a->name);
	snprintf(b, 600, "; beyond p99.9 (%s): max %.0f-%.0f us per rep vs %.0f-%.0f (p = %.2g), %.0f-%.0f samples above per rep vs %.0f-%.0f (p = %.2g): %s",
		 thr, m->bmin, m->bmax, m->amin, m->amax, m->p, x->bmin, x->bmax, x->amin, x->amax, x->p,
		 !c->tail_significant ? "no difference in the tail shown" :
		 (m->p < ALPHA ? m->est : x->est) > 0 ? "the tail is longer" : "the tail is shorter");
	return b;
}

/*
 * Who acted on the isolated vCPU, as compared with its control: "the load
 * on the housekeeping vCPU(s)" when the loads differ; with the same load,
 * "the kernel alone (the same load as X; ...)" or "the kernel and guest
 * setup alone (...)", naming what differs.
 */
static const char *cause_text(const struct run_scen *sc, const struct run_scen *ctl)
{
	static char buf[600];
	char diff[500] = "", ga[160], gb[160];
	size_t n = 0;
	int kernel_only;

	if (!ctl || strcmp(sc->load, ctl->load))
		return "the load on the housekeeping vCPU(s)";
	/* the guests without their kernel= part: what differs besides the kernel */
	for (int i = 0; i < 2; i++) {
		const char *g = i ? ctl->guest : sc->guest;
		char *out = i ? gb : ga, *t, tmp[160], *save;

		out[0] = '\0';
		snprintf(tmp, sizeof(tmp), "%s", g);
		for (t = strtok_r(tmp, ",", &save); t; t = strtok_r(NULL, ",", &save))
			if (strncmp(t, "kernel=", 7))
				snprintf(out + strlen(out), 160 - strlen(out), "%s,", t);
	}
	kernel_only = !strcmp(ga, gb) && !strcmp(sc->sysctls, ctl->sysctls);
	if (strcmp(sc->kopts, ctl->kopts))
		n += (size_t)snprintf(diff + n, sizeof(diff) - n, "; kernel options `%s` instead of `%s`", sc->kopts, ctl->kopts);
	if (strcmp(sc->guest, ctl->guest) && n < sizeof(diff))
		n += (size_t)snprintf(diff + n, sizeof(diff) - n, "; guest `%s` instead of `%s`", *sc->guest ? sc->guest : "-",
				      *ctl->guest ? ctl->guest : "-");
	if (strcmp(sc->sysctls, ctl->sysctls) && n < sizeof(diff))
		snprintf(diff + n, sizeof(diff) - n, "; sysctls `%s` instead of `%s`", *sc->sysctls ? sc->sysctls : "-",
			 *ctl->sysctls ? ctl->sysctls : "-");
	snprintf(buf, sizeof(buf), "%s (the same load as %s%s)", kernel_only ? "the kernel alone" : "the kernel and guest setup alone",
		 ctl->name, diff);
	return buf;
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
	char costs[1600] = "", risk[300] = "", unmeasured[300];

	printf("  \"verdicts\": [");
#define VERDICT(...) do { printf("%s\n    \"", first ? "" : ","); printf(__VA_ARGS__); printf("\""); first = 0; } while (0)
	for (int i = 0; i < run.nscen; i++) {
		const struct run_scen *sc = &run.scen[i];
		const struct cmp *c = role_cmp(sc);

		roles |= sc->expect[0] != '\0';
		if (!c) {
			struct run_scen *ctl = sc->control[0] ? run_find(&run, sc->control) : NULL;

			if (ctl && ctl != sc && (!sc->good || !ctl->good))
				VERDICT("%s: no data: %s has no usable rep, so %s / %s is not judged.", sc->name,
					sc->good ? ctl->name : sc->name, sc->name, ctl->name);
			continue;
		}
		if (!strcmp(sc->expect, "harm")) {
			int all, call;
			double pct = cycles_pct(c->b, &all), cpct = cycles_pct(c->a, &call);
			const char *who = cause_text(sc, c->a);

			if (!impact)
				impact = c;
			if (c->significant)
				VERDICT("%s: %s %s p99.9 latency on the isolated vCPU %s%s over %s%s%s.",
					sc->name, who, c->r_p999 >= 1 ? "raised" : "lowered", effect(c), beyond_note(sc),
					sc->control, c->one_bin ? sig_word(c) : "", cpu_traps_note(sc));
			else
				VERDICT("%s: %s did not significantly change p99.9 latency on the isolated vCPU over %s: %s%s%s%s%s.",
					sc->name, who, sc->control, effect(c), sig_word(c), beyond_note(sc), cpu_traps_note(sc),
					tail_text(c));
			if (pct >= 0 && cpct >= 0)
				VERDICT("%s: cyclictest measured %s %% of its periods on the isolated vCPU (%s: %s %%): %s.",
					sc->name, pct_text(pct, all), sc->control, pct_text(cpct, call), pct < 0.9 * cpct ?
					"the missing periods are the long wake-ups themselves (coordinated omission); the figures here count them back in" :
					"it was not starved");
		} else if (!strcmp(sc->expect, "kill")) {
			int killed = count_fate(sc, "sigbus");

			if (!on)
				on = c;
			if (killed)
				VERDICT("%s: the offender %s; p99.9 %s %s: %s%s%s. %s", sc->name, death_text(sc),
					c->equivalent ? "stayed within x1.2 of" : !c->significant ? "showed no difference from" :
					c->r_p999 <= 1 ? "was not above" : "stayed above",
					sc->control, effect(c), sig_word(c), c->significant ? "" : tail_text(c), before_kill_text(sc));
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
			VERDICT("%s: with detection on, a split-lock-free load changed p99.9 over %s by %s%s%s.",
				sc->name, sc->control, effect(c), sig_word(c), c->significant ? "" : tail_text(c));
		} else if (!strcmp(sc->expect, "ratelimit")) {
			/* Runs from kernels without the buslock counter have no sld_buslock. */
			double db = rep_median(sc, "sld_buslock");
			char dbtext[80] = "bus-lock #DB traps are not counted as #AC traps";

			if (db >= 0)
				snprintf(dbtext, sizeof(dbtext), "%.0f bus-lock #DB traps per rep", db);
			VERDICT("%s: the offender %s (load fates: %s) and was held to %.1f split locks per second (median over reps; %s); p99.9 versus %s %s%s%s.",
				sc->name, count_fate(sc, "sigbus") ? "was killed in some reps" : "survived", sc->fates,
				rate_median(sc), dbtext, sc->control, effect(c), sig_word(c),
				c->significant ? "" : tail_text(c));
		} else if (!strcmp(sc->expect, "throttle")) {
			VERDICT("%s: the offender %s (load fates: %s) and trapped %.0f times per rep (median)%s; p99.9 versus %s %s%s%s.",
				sc->name, count_fate(sc, "sigbus") ? "was killed in some reps" : "survived", sc->fates,
				rep_median(sc, "sld_traps"), cpu_traps_note(sc), sc->control, effect(c), sig_word(c),
				c->significant ? "" : tail_text(c));
		} else {
			VERDICT("%s against %s: p99.9 %s%s%s.", sc->name, sc->control, effect(c), sig_word(c),
				c->significant ? "" : tail_text(c));
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
	/* the platform (emulated or which machine) opens the report's Decision */
	if (!cost || !risk[0])
		snprintf(unmeasured, sizeof(unmeasured), "Not measured here: %s%s%s.",
			 cost ? "" : "what detection costs a split-lock-free application",
			 !cost && !risk[0] ? ", " : "",
			 risk[0] ? "" : "what detection does to an RT task that itself takes a split lock");
	else
		unmeasured[0] = '\0';
	/* costs and risk end in ". ": no space after the last sentence */
	if (!unmeasured[0] && risk[0])
		risk[strlen(risk) - 1] = '\0';
	else if (!unmeasured[0] && costs[0])
		costs[strlen(costs) - 1] = '\0';
	if (impact && on) {
		harm = impact->significant && impact->r_p999 > 1;
		cured = count_fate(on->b, "sigbus") && !(on->significant && on->r_p999 > 1);
		if (harm && cured && on->tail_significant)
			VERDICT("Decision: in this run the split-lock load raised the isolated vCPU's p99.9 %s over %s and with detection on (%s) the offender died, but the tail beyond p99.9 differs from %s%s: investigate before relying on detection alone.",
				effect(impact), impact->a->name, on->b->name, on->a->name, tail_text(on));
		else if (harm && cured && on->equivalent)
			VERDICT("Decision: in this run the split-lock load raised the isolated vCPU's p99.9 %s over %s, and with detection on (%s) the offender died and p99.9 stayed within x1.2 of %s, the tail beyond it too: enabling split_lock_detect removed the measured harm. %s %s%s%s",
				effect(impact), impact->a->name, on->b->name, on->a->name, before_kill_text(on->b), costs, risk, unmeasured);
		else if (harm && cured && !on->resolvable)
			VERDICT("Decision: in this run the split-lock load raised the isolated vCPU's p99.9 %s over %s, and with detection on (%s) the offender died and neither p99.9 nor the tail beyond it showed a difference from %s (equivalence within x%.1f is not resolvable at %.0f us with %d us bins): enabling split_lock_detect removed the measured harm, as far as this resolution shows. %s %s%s%s",
				effect(impact), impact->a->name, on->b->name, on->a->name, MARGIN, on->floor_us, HIST_BIN_US,
				before_kill_text(on->b), costs, risk, unmeasured);
		else if (harm && cured)
			VERDICT("Decision: in this run the split-lock load raised the isolated vCPU's p99.9 %s over %s and with detection on the offender died, but the run cannot show p99.9 back within x1.2 of %s (too few reps or too much spread%s): the harm is shown, its removal is not yet.",
				effect(impact), impact->a->name, on->a->name, sig_word(on));
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
	int all;
	double pct = cycles_pct(s, &all);

	printf(", \"cycles_pct\": ");
	jnum(pct < 0 ? NAN : pct);
	printf(", \"cycles_pct_text\": \"%s\", \"corrected\": {", pct < 0 ? "no data" : pct_text(pct, all));
	hist_stats_json(stdout, &s->pcst);
	printf("}, \"per_rep\": [");
	for (int r = 0, n = 0; r < s->nreps; r++) {
		const struct run_rep *rp = &s->reps[r];

		if (!rp->have_hist)
			continue;
		printf("%s{\"rep\": %d, \"seed\": %lld, \"p50_us\": %ld, \"p99_us\": %ld, \"p999_us\": %ld, "
		       "\"max_us\": %ld, \"missed_periods\": %lld, \"co_p50_us\": %ld, \"co_p99_us\": %ld, "
		       "\"co_p999_us\": %ld, \"p999_enough_samples\": %s, \"co_p999_beyond_limit\": %s}",
		       n++ ? ", " : "", rp->rep, rp->seed, rp->st.p50, rp->st.p99, rp->st.p999, rp->st.max_us,
		       (long long)rp->missed, rp->cst.p50, rp->cst.p99, rp->cst.p999,
		       rep_periods(rp) * (1 - 0.999) >= MIN_BEYOND ? "true" : "false",
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

/* ", \"key\": [v0, v1, ...]" of n values */
static void jlist(const char *key, const double *v, int n)
{
	printf(", \"%s\": [", key);
	for (int i = 0; i < n; i++) {
		printf("%s", i ? ", " : "");
		jnum(v[i]);
	}
	printf("]");
}

/* The design of an inference: "paired" or "unpaired", and why. */
static void jdesign(const struct infer *q)
{
	printf(", \"design\": \"%s\", \"design_note\": \"%s\", \"ties\": %s", q->paired ? "paired" : "unpaired",
	       q->paired ? "rep k of both scenarios ran with seed k: per-seed log-ratios" : q->why,
	       q->ties ? "true" : "false");
}

static void cmp_json(const struct cmp *c, int last)
{
	const struct infer *m = &c->mx, *x = &c->above;
	double v[2];

	printf("    {\"label\": \"%s\", \"a\": \"%s\", \"b\": \"%s\", \"reps_a\": %d, \"reps_b\": %d",
	       c->label, c->a->name, c->b->name, c->na, c->nb);
	jdesign(&c->q999);
	printf(", \"pairs\": %d, \"identical\": %s, \"ratio_p99\": ", c->q999.paired ? c->na : 0,
	       c->q999.identical ? "true" : "false");
	jnum(c->r_p99);
	jpair("ratio_p99_ci", c->ci99);
	printf(", \"ratio_p999\": ");
	jnum(c->r_p999);
	jpair("ratio_p999_ci", c->ci999);
	jpair("ratio_p999_ci90", c->ci999_90);
	printf(", \"p\": ");
	jnum(c->p);
	printf(", \"significant\": %s, \"equivalent\": %s, \"resolvable\": %s, \"equivalence\": \"%s\", \"floor_us\": ",
	       c->significant ? "true" : "false", c->equivalent ? "true" : "false", c->resolvable ? "true" : "false",
	       c->equivalent ? "shown" : !c->resolvable ? "not resolvable" : "not shown");
	jnum(c->floor_us);
	printf(", \"bin_over_value\": ");
	jnum(c->resolution);
	printf(", \"reps_needed_detect\": %d, \"reps_needed_equivalence\": %d", c->need_detect, c->need_equiv);
	if (c->tie)
		printf(", \"tie\": {\"pairs\": %d, \"a_us\": %.0f, \"b_us\": %.0f}", c->na, c->tie_a_us, c->tie_b_us);
	else
		printf(", \"tie\": null");
	printf(", \"one_bin\": %s, \"effect\": \"%s%s\"", c->ok && c->one_bin ? "true" : "false", c->ok ? effect(c) : "",
	       c->ok ? sig_word(c) : "");
	printf(", \"tail\": {\"threshold_us\": %.0f, \"threshold_from\": \"%s\"", c->tail_us,
	       c->tail_deadline ? "DEADLINE_US" : "the control's maximum");
	jdesign(m);
	jlist("max_a_us", m->va, m->na);
	jlist("max_b_us", m->vb, m->nb);
	printf(", \"ratio_max\": ");
	jnum(exp(m->est));
	v[0] = exp(m->lo);
	v[1] = exp(m->hi);
	jpair("ratio_max_ci", v);
	printf(", \"p_max\": ");
	jnum(m->p);
	jlist("above_a", x->va, x->na);
	jlist("above_b", x->vb, x->nb);
	printf(", \"above_shift\": ");
	jnum(x->est);
	v[0] = x->lo;
	v[1] = x->hi;
	jpair("above_shift_ci", v);
	printf(", \"p_above\": ");
	jnum(x->p);
	printf(", \"significant\": %s}}%s\n", c->tail_significant ? "true" : "false", last ? "" : ",");
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

/*
 * The summary figure's data (plots/summary.gp): DIR/summary.dat, each
 * usable rep's corrected p99.9 and max per scenario; DIR/summary-scen.dat,
 * per scenario its control's range (the control's smallest p99.9 to its
 * largest max) and the p99.9 ratio with its 95 % interval ("?" where
 * there is none), and the label drawn beside it.
 */
static int write_summary_data(const char *dir)
{
	FILE *f = open_data(dir, "summary", "dat"), *g = open_data(dir, "summary-scen", "dat");

	if (!f || !g) {
		if (f)
			fclose(f);
		if (g)
			fclose(g);
		return -1;
	}
	fprintf(f, "# index name rep p999_us max_us (corrected, usable reps)\n");
	fprintf(g, "# index name control ctl_lo_us ctl_hi_us ratio_p999 ci_lo ci_hi label top_us\n");
	for (int i = 0; i < run.nscen; i++) {
		const struct run_scen *sc = &run.scen[i];
		const struct cmp *c = role_cmp(sc);
		double lo = INFINITY, hi = -INFINITY;
		long top = scen_max(sc);
		char lab[80];

		for (int r = 0; r < sc->nreps; r++)
			if (sc->reps[r].have_hist)
				fprintf(f, "%d %s %d %ld %ld\n", i, sc->name, sc->reps[r].rep, sc->reps[r].cst.p999,
					sc->reps[r].cst.max_us);
		if (!c || !c->na || !c->nb) {
			fprintf(g, "%d %s - ? ? ? ? ? \"\" %ld\n", i, sc->name, top);
			continue;
		}
		for (int r = 0; r < c->a->nreps; r++)
			if (c->a->reps[r].have_hist) {
				lo = fmin(lo, (double)c->a->reps[r].cst.p999);
				hi = fmax(hi, (double)c->a->reps[r].cst.max_us);
			}
		fprintf(g, "%d %s %s %.0f %.0f %.4g ", i, sc->name, c->a->name, lo, hi, c->r_p999);
		/* a tie in words, one bin named as such: no interval, no "*" */
		if (c->tie || c->one_bin)
			snprintf(lab, sizeof(lab), "x%.3g (%s%s%s)", c->r_p999, c->tie ? "all pairs" : "",
				 c->tie && c->one_bin ? ", " : "", c->one_bin ? "one bin" : "");
		else if (isnan(c->ci999[0]))
			snprintf(lab, sizeof(lab), "x%.3g%s", c->r_p999, c->significant ? " *" : "");
		else
			snprintf(lab, sizeof(lab), "x%.3g (%.3g-%.3g)%s", c->r_p999, c->ci999[0], c->ci999[1],
				 c->significant ? " *" : "");
		if (isnan(c->ci999[0]))
			fprintf(g, "? ? \"%s\" %ld\n", lab, top);
		else
			fprintf(g, "%.4g %.4g \"%s\" %ld\n", c->ci999[0], c->ci999[1], lab, top);
	}
	fclose(f);
	fclose(g);
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
	return write_summary_data(dir);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "against", required_argument, NULL, 'a' },
		{ "plot-data", required_argument, NULL, 'p' },
		{ "deadline", required_argument, NULL, 'd' },
		{ "measure", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *against = NULL, *plot = NULL;
	int c, rc;

	while ((c = getopt_long(argc, argv, "a:p:d:m:h", opts, NULL)) != -1) {
		char *end;

		switch (c) {
		case 'a': against = optarg; break;
		case 'd':
			errno = 0;
			deadline_us = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || deadline_us < 0 || deadline_us > 100000000) {
				fprintf(stderr, "slb-stats: --deadline '%s' is not a whole number of us (allowed: 0 to 100000000, 0 = the control's maximum)\n",
					optarg);
				return 2;
			}
			break;
		case 'p': plot = optarg; break;
		case 'm':
			if (run_set_measure(optarg)) {
				fprintf(stderr, "slb-stats: measure '%s' is not allowed (allowed: " RUN_MEASURES ")\n", optarg);
				return 2;
			}
			break;
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
	printf("{\n  \"unit\": \"us\",\n  \"measure\": \"%s\",\n  \"emulated\": true,\n", run_measure());
	printf("  \"method\": {\"unit\": \"the rep (one guest boot): one value per rep, never pooled samples\", "
	       "\"design\": \"paired where rep k of both scenarios ran with seed k (the seeds recorded, the same on both sides): the unit is then the pair, analysed on its log-ratio; unpaired (independent reps) otherwise, which each comparison names with its reason\", "
	       "\"values\": \"per-rep p99 and p99.9 corrected for coordinated omission as HdrHistogram does (missed cyclictest periods reconstructed while at least one interval; the correction can lower a quantile above one interval); a rep counts for a quantile only with %d samples beyond it (of the periods cyclictest was asked for, so that a rep whose long wake-ups cost periods is not dropped for it)\", "
	       "\"ci\": \"paired: Hodges-Lehmann ratio on the Walsh averages of the log-ratios with its exact distribution-free 95 %% interval (it takes %d pairs to exist); unpaired: Hodges-Lehmann ratio of all differences with its exact interval (it takes %d reps, half per side); with ties the exact interval is conservative (covers at least 95 %%)\", "
	       "\"test\": \"paired: exact two-sided Wilcoxon signed-rank test of the log-ratios (least p of n pairs: 2/2^n); unpaired: exact two-sided permutation test of Mann-Whitney U over the reps; both on p99.9 (the p column)\", "
	       "\"significant\": \"p < alpha\", \"equivalent\": \"the 95 %% interval of the p99.9 ratio inside x%.3f to x%.1f (an equivalence test stricter than TOST's 90 %%), judged only where a histogram bin (%d us) next to the smaller median p99.9 stays inside that margin, else not resolvable at this resolution\", "
	       "\"tail\": \"per rep the largest latency and the samples above a threshold (DEADLINE_US, else the control's largest latency), tested like the quantiles: what a p99.9 cannot see\", "
	       "\"reps_needed\": \"when inconclusive: pairs (or reps per side) for 80 %% power to detect x%.1f, and for the 95 %% interval to fall inside the margin if there is no difference, from a normal approximation with the observed spread and the rank tests' 3/pi efficiency\", \"alpha\": %.2f},\n",
	       MIN_BEYOND, reptest_min_pairs(ALPHA), reptest_min_reps(ALPHA), 1 / MARGIN, MARGIN, HIST_BIN_US, MARGIN, ALPHA);
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
	/* The comparisons a scenario without a usable rep left out. */
	printf("  ],\n  \"comparisons_no_data\": [");
	for (int i = 0, n = 0; i < ncmp; i++) {
		if (cmps[i].ok)
			continue;
		printf("%s\n    {\"label\": \"%s\", \"a\": \"%s\", \"b\": \"%s\", \"no_usable_rep\": [", n++ ? "," : "",
		       cmps[i].label, cmps[i].a->name, cmps[i].b->name);
		if (!cmps[i].b->good)
			printf("\"%s\"%s", cmps[i].b->name, cmps[i].a->good ? "" : ", ");
		if (!cmps[i].a->good)
			printf("\"%s\"", cmps[i].a->name);
		printf("]}");
	}
	printf("\n  ],\n");
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
