// SPDX-License-Identifier: GPL-2.0-or-later
/* The calibration's wake-up probe (see wakeup.h). */
#include "wakeup.h"
#include "stats.h"
#include "victim.h"

#include <errno.h>
#include <linux/futex.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int64_t wakeup_next(int64_t due, int64_t now, int64_t interval, uint64_t *missed)
{
	int64_t next = due + interval;

	if (interval <= 0)
		return now;
	/* the first period at or after now, as cyclictest's while (now > next) */
	if (now > next) {
		int64_t skip = (now - next + interval - 1) / interval;

		*missed += (uint64_t)skip;
		next += skip * interval;
	}
	return next;
}

static void sleep_abs(int64_t t)
{
	struct timespec ts = { .tv_sec = t / 1000000000, .tv_nsec = t % 1000000000 };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

void wakeup_timer(struct wakeup_run *w, int64_t interval_ns, double seconds)
{
	int64_t t0 = victim_now_ns(), end = t0 + (int64_t)(seconds * 1e9), due = t0 + interval_ns, now;

	w->n = 0;
	w->missed = 0;
	w->timeouts = 0;
	while (w->n < w->cap && due <= end) {
		sleep_abs(due);
		now = victim_now_ns();
		w->lat[w->n++] = (double)(now - due);
		due = wakeup_next(due, now, interval_ns, &w->missed);
	}
}

static long futex(_Atomic uint32_t *word, int op, uint32_t val, const struct timespec *timeout)
{
	return syscall(SYS_futex, (uint32_t *)word, op, val, timeout, NULL, 0);
}

void wakeup_futex_init(struct wakeup_futex *f, int64_t interval_ns)
{
	atomic_store(&f->seq, 0);
	atomic_store(&f->stamp, 0);
	atomic_store(&f->stop, 0);
	f->interval_ns = interval_ns;
	f->wakes = 0;
}

void *wakeup_futex_waker(void *arg)
{
	struct wakeup_futex *f = arg;
	int64_t due = victim_now_ns() + f->interval_ns;
	uint64_t missed = 0;

	while (!atomic_load(&f->stop)) {
		sleep_abs(due);
		if (atomic_load(&f->stop))
			break;
		atomic_store(&f->stamp, victim_now_ns());
		atomic_fetch_add(&f->seq, 1);
		futex(&f->seq, FUTEX_WAKE_PRIVATE, 1, NULL);
		f->wakes++;
		due = wakeup_next(due, victim_now_ns(), f->interval_ns, &missed);
	}
	return NULL;
}

void wakeup_futex_wait(struct wakeup_futex *f, struct wakeup_run *w, double seconds)
{
	int64_t end = victim_now_ns() + (int64_t)(seconds * 1e9), limit = 1000000000 + 10 * f->interval_ns;
	struct timespec to = { .tv_sec = limit / 1000000000, .tv_nsec = limit % 1000000000 };
	uint32_t seen = atomic_load(&f->seq);

	w->n = 0;
	w->missed = 0;
	w->timeouts = 0;
	while (w->n < w->cap) {
		uint32_t now_seq;
		int64_t now;

		while ((now_seq = atomic_load(&f->seq)) == seen) {
			if (futex(&f->seq, FUTEX_WAIT_PRIVATE, seen, &to) && errno == ETIMEDOUT &&
			    atomic_load(&f->seq) == seen) {
				w->timeouts++;
				goto out;
			}
		}
		now = victim_now_ns();
		/* a wake that came while this thread was not waiting is no wake-up: skip it */
		if (now_seq == seen + 1)
			w->lat[w->n++] = (double)(now - atomic_load(&f->stamp));
		else
			w->missed += now_seq - seen - 1;
		seen = now_seq;
		if (now >= end)
			break;
	}
out:
	atomic_store(&f->stop, 1);
}

int wakeup_summarize(struct wakeup_run *w, struct wakeup_summary *s)
{
	if (!w->n) {
		s->p50 = s->p99 = s->max = NAN;
		return -1;
	}
	qsort(w->lat, w->n, sizeof(w->lat[0]), stats_cmp_double);
	s->p50 = sorted_percentile(w->lat, (int)w->n, 0.5);
	s->p99 = sorted_percentile(w->lat, (int)w->n, 0.99);
	s->max = w->lat[w->n - 1];
	return 0;
}
