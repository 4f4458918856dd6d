// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * slb-msr: read or write a model-specific register through
 * /dev/cpu/N/msr (guest tool; needs CONFIG_X86_MSR and root). A register
 * that does not exist makes the kernel's rdmsr/wrmsr fault with #GP, which
 * the msr driver reports as EIO: slb-msr then says "absent" and exits 1.
 *
 *   slb-msr read CPU MSR          prints the value in hex
 *   slb-msr write CPU MSR VALUE
 *
 * Exit status: 0 done, 1 failed (absent register, no driver), 2 usage.
 */
#include "../lib/msr.h"
#include "../lib/num.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: slb-msr read CPU MSR | slb-msr write CPU MSR VALUE\n"
		"Access MSR (e.g. 0x33) of CPU through /dev/cpu/CPU/msr.\n\n"
		"  -h, --help   this text\n\n"
		"Exit status: 0 done, 1 failed (EIO: the MSR does not exist), 2 usage error.\n");
}

static int parse_u64(const char *what, const char *text, uint64_t *v)
{
	return num_parse_u64("slb-msr", what, text, 0, UINT64_MAX, v);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t cpu, msr, val = 0;
	int c, err, writing;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return 0;
		}
		usage(stderr);
		return 2;
	}
	argv += optind;
	argc -= optind;
	if (argc < 1 || (strcmp(argv[0], "read") && strcmp(argv[0], "write"))) {
		fprintf(stderr, "slb-msr: command must be 'read' or 'write'\n");
		return 2;
	}
	writing = !strcmp(argv[0], "write");
	if (argc != (writing ? 4 : 3)) {
		usage(stderr);
		return 2;
	}
	if (parse_u64("CPU", argv[1], &cpu) || parse_u64("MSR", argv[2], &msr) ||
	    (writing && parse_u64("VALUE", argv[3], &val)))
		return 2;
	if (cpu > 8191 || msr > UINT32_MAX) {
		fprintf(stderr, "slb-msr: CPU %" PRIu64 " / MSR 0x%" PRIx64 " out of range (CPU 0-8191, MSR 32 bits)\n",
			cpu, msr);
		return 2;
	}
	err = msr_access((int)cpu, (uint32_t)msr, &val, writing);
	if (err) {
		fprintf(stderr, "slb-msr: %s MSR 0x%" PRIx64 " on CPU %" PRIu64 ": %s%s\n",
			writing ? "write" : "read", msr, cpu, strerror(err),
			err == EIO ? " (absent, or a reserved bit: #GP)" : "");
		return 1;
	}
	if (!writing)
		printf("0x%" PRIx64 "\n", val);
	return 0;
}
