/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The calibration's wake-up probe: how late a task that sleeps is woken,
 * the path cyclictest measures, as a microbenchmark slb-calibrate runs
 * natively and in the guest. Plain C and libc (futex through syscall), so
 * that the same code runs in the static guest programs.
 *   timer  the calling thread sleeps with clock_nanosleep(TIMER_ABSTIME)
 *          until the next period of an interval, as cyclictest does; its
 *          latency is the time it reads on waking less the time it was due
 *   futex  the calling thread waits on a futex that a waker thread (on
 *          another CPU, wakeup_futex_waker) bumps and wakes once per
 *          interval; its latency is the time it reads on waking less the
 *          time the waker read just before the wake
 * Latencies in ns (CLOCK_MONOTONIC), one per wake-up.
 */
#ifndef SLB_WAKEUP_H
#define SLB_WAKEUP_H

#include <stddef.h>
#include <stdint.h>

/* One probe run's wake-ups. */
struct wakeup_run {
	double *lat;		/* ns late, one per wake-up (caller's buffer) */
	size_t cap, n;		/* room in lat; wake-ups recorded */
	uint64_t missed;	/* timer: periods skipped (a wake-up came after the next was due) */
	uint64_t timeouts;	/* futex: waits that no wake ended (the waker fell silent) */
};

/*
 * The timer's next due time after a wake-up at now that was due at due:
 * due + interval, or when the wake-up came later than that, the first
 * period at or after now (each period skipped counted in *missed), as
 * cyclictest does.
 */
int64_t wakeup_next(int64_t due, int64_t now, int64_t interval, uint64_t *missed);

/*
 * Sleep to each period of interval_ns (from the next one) until seconds
 * have passed or w->cap wake-ups are recorded; w->n, w->lat, w->missed.
 */
void wakeup_timer(struct wakeup_run *w, int64_t interval_ns, double seconds);

/* What the futex probe's two threads share. */
struct wakeup_futex {
	_Alignas(64) _Atomic uint32_t seq;	/* the futex word: bumped on each wake */
	_Atomic int64_t stamp;			/* the waker's clock just before the wake */
	_Alignas(64) _Atomic int stop;		/* the waiter is done: the waker returns */
	int64_t interval_ns;
	uint64_t wakes;				/* wakes the waker issued */
};

/* Set up f for a waker of interval_ns. */
void wakeup_futex_init(struct wakeup_futex *f, int64_t interval_ns);

/*
 * The waker (a thread's function, arg a struct wakeup_futex): every
 * interval, stamp the time, bump the word and wake its waiter, until
 * f->stop; returns NULL.
 */
void *wakeup_futex_waker(void *arg);

/*
 * The waiter: wait on f's word, record each wake-up's latency, until
 * seconds have passed or w->cap wake-ups are recorded; then set f->stop
 * (the caller joins the waker). A wait that no wake ends within a second
 * and ten intervals counts in w->timeouts and ends the run.
 */
void wakeup_futex_wait(struct wakeup_futex *f, struct wakeup_run *w, double seconds);

/* Median, 99th percentile and largest of a run's latencies (ns). */
struct wakeup_summary {
	double p50, p99, max;
};

/*
 * Summarize w (sorting w->lat in place; percentiles interpolated between
 * order statistics, as sorted_percentile). 0, or -1 (all NAN) when w
 * recorded no wake-up.
 */
int wakeup_summarize(struct wakeup_run *w, struct wakeup_summary *s);

#endif
