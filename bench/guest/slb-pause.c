// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * slb-pause: the guest's snapshot point. Tells QEMU's pvpanic device (ISA
 * port 0x505) that the guest "panicked"; run with -action panic=pause,
 * QEMU stops the guest at that very instruction, so that
 * bench/target/run-guest.sh can keep the booted guest and start later runs
 * from it. Under the virtual clock the stop is where the guest asks, not
 * where the host happens to look, and a guest started from the kept state
 * returns from the port write as if nothing had happened.
 *
 * Then it reseeds the kernel's random number generator (RNDRESEEDCRNG),
 * which draws on RDRAND: a run started from the kept guest has a -seed of
 * its own, so its kernel random numbers (address space layout and the
 * like) differ from seed to seed, as in a guest booted with that seed,
 * and not only from the point on where the kernel would reseed anyway.
 *
 * Nothing stops where no pvpanic device is (the write goes nowhere), so
 * /init calls it only when the command line asks (slb.snapshot=1).
 *
 * Exit status: 0 written and reseeded, 1 the port cannot be reached (no
 * ioperm) or the reseed failed, 2 usage.
 */
#include <fcntl.h>
#include <getopt.h>
#include <linux/random.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/io.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define PVPANIC_PORT 0x505
#define PVPANIC_PANICKED 0x1

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: slb-pause\n"
		"Stop here: write 'panicked' to the pvpanic port 0x%x, which a QEMU\n"
		"run with -device pvpanic -action panic=pause stops the guest at; then\n"
		"reseed the kernel's random numbers (from RDRAND: the run's -seed).\n\n"
		"  -h, --help  this text\n\n"
		"Exit status: 0 written and reseeded, 1 port unavailable or reseed\n"
		"failed, 2 usage error.\n", PVPANIC_PORT);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, fd;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "slb-pause: unexpected argument '%s' (see --help)\n", argv[optind]);
		return 2;
	}
	if (ioperm(PVPANIC_PORT, 1, 1) != 0) {
		perror("slb-pause: ioperm");
		return 1;
	}
	outb(PVPANIC_PANICKED, PVPANIC_PORT);
	fd = open("/dev/urandom", O_WRONLY);
	if (fd < 0 || ioctl(fd, RNDRESEEDCRNG) != 0) {
		perror("slb-pause: reseeding /dev/urandom");
		return 1;
	}
	close(fd);
	return 0;
}
