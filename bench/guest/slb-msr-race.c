// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * slb-msr-race: guest test of a core-scope MSR written by two SMT threads
 * at once. MSR_TEST_CTRL (0x33) is one register per core: whatever the two
 * threads write, afterwards both must read the same value (the later
 * write's). Each round, one thread pinned to CPU A and one pinned to CPU B
 * leave a spin barrier together and write opposite values (detection on
 * and off, alternating), meet again, and each reads the MSR on its own CPU.
 * A round where the two reads differ is a disagreement: the emulation let
 * each thread end with the other's write.
 *
 *   slb-msr-race [--rounds N] [--json] CPU_A CPU_B
 *
 * Output: one line (or a JSON object) with rounds, disagreements and the
 * values read in the first disagreeing round. Leaves the MSR at 0.
 * Exit status: 0 no disagreement, 1 disagreements or an MSR error, 2 usage.
 */
#include "../lib/msr.h"
#include "../lib/num.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MSR_TEST_CTRL 0x33
#define SPLIT_LOCK_DETECT (1ull << 29)

struct racer {
	int cpu, fd, err;
	uint64_t *reads;	/* what this thread read back, per round */
	pthread_t tid;
};

static struct racer racers[2];
static long rounds = 2000;
static atomic_long arrived;	/* barrier: 2 arrivals per meeting */

/* Spin until both threads have arrived at meeting number m (from 1). */
static void meet(long m)
{
	atomic_fetch_add(&arrived, 1);
	while (atomic_load(&arrived) < 2 * m)
		;
}

/* One thread: write this round's value, meet, read back, meet. */
static void *race(void *arg)
{
	struct racer *r = arg;
	int me = (int)(r - racers);
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(r->cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one))
		r->err = errno;
	for (long i = 0; i < rounds; i++) {
		uint64_t v = ((i + me) & 1) ? SPLIT_LOCK_DETECT : 0;

		meet(2 * i + 1);
		if (!r->err)
			r->err = msr_fd_access(r->fd, MSR_TEST_CTRL, &v, 1);
		meet(2 * i + 2);
		if (!r->err)
			r->err = msr_fd_access(r->fd, MSR_TEST_CTRL, &r->reads[i], 0);
	}
	return NULL;
}

static int run(int json)
{
	long bad = 0, first = -1;
	uint64_t zero = 0;

	for (int k = 0; k < 2; k++) {
		struct racer *r = &racers[k];

		r->fd = msr_open(r->cpu);
		r->reads = calloc((size_t)rounds, sizeof(*r->reads));
		if (r->fd < 0 || !r->reads) {
			fprintf(stderr, "slb-msr-race: CPU %d: %s\n", r->cpu,
				strerror(r->fd < 0 ? -r->fd : ENOMEM));
			return 1;
		}
	}
	for (int k = 0; k < 2; k++) {
		if ((errno = pthread_create(&racers[k].tid, NULL, race, &racers[k]))) {
			fprintf(stderr, "slb-msr-race: thread: %s\n", strerror(errno));
			return 1;
		}
	}
	for (int k = 0; k < 2; k++)
		pthread_join(racers[k].tid, NULL);
	for (int k = 0; k < 2; k++) {
		if (racers[k].err) {
			fprintf(stderr, "slb-msr-race: MSR 0x%x on CPU %d: %s\n", MSR_TEST_CTRL, racers[k].cpu,
				strerror(racers[k].err));
			return 1;
		}
	}
	for (long i = 0; i < rounds; i++) {
		if (racers[0].reads[i] != racers[1].reads[i]) {
			bad++;
			if (first < 0)
				first = i;
		}
	}
	msr_fd_access(racers[0].fd, MSR_TEST_CTRL, &zero, 1);
	if (json) {
		printf("{\"cpus\": [%d, %d], \"rounds\": %ld, \"disagreements\": %ld", racers[0].cpu, racers[1].cpu,
		       rounds, bad);
		if (first >= 0)
			printf(", \"first\": {\"round\": %ld, \"read\": [\"0x%" PRIx64 "\", \"0x%" PRIx64 "\"]}", first,
			       racers[0].reads[first], racers[1].reads[first]);
		printf("}\n");
	} else {
		printf("slb-msr-race: CPUs %d and %d, %ld rounds, %ld disagreements", racers[0].cpu, racers[1].cpu,
		       rounds, bad);
		if (first >= 0)
			printf(" (first in round %ld: CPU %d read 0x%" PRIx64 ", CPU %d read 0x%" PRIx64 ")", first,
			       racers[0].cpu, racers[0].reads[first], racers[1].cpu, racers[1].reads[first]);
		printf("\n");
	}
	return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "rounds", required_argument, NULL, 'r' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, json = 0;
	double d;

	while ((c = getopt_long(argc, argv, "r:jh", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			if (num_parse("slb-msr-race", "--rounds", optarg, 1, 100000, 1, &d))
				return 2;
			rounds = (long)d;
			break;
		case 'j':
			json = 1;
			break;
		case 'h':
			printf("Usage: slb-msr-race [--rounds N] [--json] CPU_A CPU_B\n"
			       "Two SMT threads write MSR_TEST_CTRL at once, N rounds (default 2000);\n"
			       "each round both must then read the same value. N: 1 to 100000.\n"
			       "Exit status: 0 no disagreement, 1 disagreement or MSR error, 2 usage error.\n");
			return 0;
		default:
			return 2;
		}
	}
	if (argc - optind != 2) {
		fprintf(stderr, "slb-msr-race: give two CPUs, the threads of one core (see --help)\n");
		return 2;
	}
	for (int k = 0; k < 2; k++) {
		if (num_parse("slb-msr-race", k ? "CPU_B" : "CPU_A", argv[optind + k], 0, CPU_SETSIZE - 1, 1, &d))
			return 2;
		racers[k].cpu = (int)d;
	}
	if (racers[0].cpu == racers[1].cpu) {
		fprintf(stderr, "slb-msr-race: CPU_A and CPU_B are both %d; give two CPUs\n", racers[0].cpu);
		return 2;
	}
	return run(json);
}
