// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit test of the calibration's wake-up probe (bench/lib/wakeup.c): the
 * timer's next period after a late wake-up (periods skipped, as
 * cyclictest), a run's median, 99th percentile and largest latency, and
 * both probes end to end for a few hundredths of a second on this host
 * (wake-ups counted, none early, the futex waker joined). No timing
 * thresholds beyond "not negative" and "some": a loaded host may miss
 * most periods. Exit 0 when every check passes.
 */
#include "lib/wakeup.h"
#include "check.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>

static int all_nonneg(const struct wakeup_run *w)
{
	for (size_t i = 0; i < w->n; i++)
		if (!(w->lat[i] >= 0))
			return 0;
	return 1;
}

int main(void)
{
	double buf[256], five[] = { 5, 1, 3, 2, 4 };
	struct wakeup_run w = { .lat = five, .cap = 5, .n = 5 };
	struct wakeup_summary s;
	struct wakeup_futex f;
	pthread_t tid;
	uint64_t missed = 0;

	CHECK(wakeup_next(1000, 1500, 1000, &missed) == 2000 && missed == 0, "on time: the next period, none missed");
	CHECK(wakeup_next(1000, 2000, 1000, &missed) == 2000 && missed == 0,
	      "woken exactly when the next was due: that one, none missed (cyclictest: now > next)");
	CHECK(wakeup_next(1000, 2001, 1000, &missed) == 3000 && missed == 1, "past the next: it is skipped, 1 missed");
	missed = 0;
	CHECK(wakeup_next(1000, 4500, 1000, &missed) == 5000 && missed == 3, "3.5 periods late: 3 missed, due at 5000");
	CHECK(wakeup_summarize(&w, &s) == 0 && s.p50 == 3 && s.max == 5 && fabs(s.p99 - 4.96) < 1e-9 &&
	      five[0] == 1 && five[4] == 5, "summary of 5,1,3,2,4: p50 3, p99 4.96 (interpolated), max 5; sorted");
	w.n = 0;
	CHECK(wakeup_summarize(&w, &s) == -1 && isnan(s.p50) && isnan(s.p99) && isnan(s.max),
	      "no wake-up: -1, all NAN");

	w = (struct wakeup_run){ .lat = buf, .cap = 256 };
	wakeup_timer(&w, 1000000, 0.02);
	CHECK(w.n >= 1 && w.n <= 20 && all_nonneg(&w),
	      "timer: 1 ms for 20 ms: at most 20 wake-ups (%zu, %llu missed), none early", w.n,
	      (unsigned long long)w.missed);
	w.cap = 3;
	wakeup_timer(&w, 1000000, 0.02);
	CHECK(w.n == 3, "timer: no more wake-ups than the buffer holds (%zu)", w.n);

	w.cap = 256;
	wakeup_futex_init(&f, 1000000);
	CHECK(pthread_create(&tid, NULL, wakeup_futex_waker, &f) == 0, "futex: the waker starts");
	wakeup_futex_wait(&f, &w, 0.02);
	pthread_join(tid, NULL);
	CHECK(atomic_load(&f.stop) && w.timeouts == 0 && w.n >= 1 && w.n <= f.wakes && all_nonneg(&w),
	      "futex: 1 ms for 20 ms: %zu wake-ups of %llu wakes, none early, the waker stopped", w.n,
	      (unsigned long long)f.wakes);
	CHECK_EXIT();
}
