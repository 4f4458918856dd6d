// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * slb-frame: the guest's side of the output channel. Sends files to the
 * host framed (see lib/frame.h) through QEMU's isa-debugcon port, which
 * bench/target/run-guest.sh connects to a host file. The port needs no driver and
 * raises no interrupts, so sending output disturbs nothing; every byte
 * written arrives, in order.
 *
 * Exit status: 0 sent, 1 error (file unreadable, port unavailable), 2 usage.
 */
#include "../lib/frame.h"
#include "../lib/io.h"
#include "../lib/num.h"

#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/io.h>

#define DEBUGCON_PORT 0xe9

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: slb-frame [options] [FILE[:NAME]]...\n"
		"Send each FILE to the host as a frame named NAME (default: its basename).\n\n"
		"  -d, --done STATUS  after the files, send the job's DONE marker\n"
		"  -r, --raw          send standard input unframed (for tests)\n"
		"  -s, --stdout       write to standard output instead of port 0x%x\n"
		"  -h, --help         this text\n\n"
		"Exit status: 0 sent, 1 error, 2 usage error.\n", DEBUGCON_PORT);
}

/* A FILE* whose writes go to the debugcon port. */
static ssize_t port_write(void *cookie, const char *buf, size_t n)
{
	(void)cookie;
	outsb(DEBUGCON_PORT, buf, n);
	return (ssize_t)n;
}

static FILE *open_port(void)
{
	static const cookie_io_functions_t io = { .write = port_write };

	if (ioperm(DEBUGCON_PORT, 1, 1)) {
		fprintf(stderr, "slb-frame: ioperm(0x%x): %s\n", DEBUGCON_PORT, strerror(errno));
		return NULL;
	}
	return fopencookie(NULL, "w", io);
}

static int send_file(FILE *out, char *spec)
{
	char *colon = strrchr(spec, ':');
	const char *name;
	unsigned char *data;
	size_t len;
	FILE *in;
	int rc;

	if (colon)
		*colon = '\0';
	name = colon ? colon + 1 : basename(spec);
	if (!frame_name_ok(name) || strlen(name) >= FRAME_NAME_MAX) {
		fprintf(stderr, "slb-frame: '%s' is not a valid frame name (letters, digits, . _ - +; not starting with .)\n", name);
		return -1;
	}
	in = fopen(spec, "rb");
	if (!in) {
		fprintf(stderr, "slb-frame: cannot read %s: %s\n", spec, strerror(errno));
		return -1;
	}
	data = read_stream(in, &len);
	fclose(in);
	if (!data) {
		fprintf(stderr, "slb-frame: out of memory reading %s\n", spec);
		return -1;
	}
	rc = frame_write(out, name, data, len);
	free(data);
	return rc;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "done", required_argument, NULL, 'd' },
		{ "raw", no_argument, NULL, 'r' },
		{ "stdout", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, raw = 0, to_stdout = 0, have_done = 0, done = 0, err = 0;
	double d;
	FILE *out;

	while ((c = getopt_long(argc, argv, "d:rsh", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (num_parse("slb-frame", "--done", optarg, -255, 255, 1, &d))
				return 2;
			done = (int)d;
			have_done = 1;
			break;
		case 'r': raw = 1; break;
		case 's': to_stdout = 1; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (raw && optind < argc) {
		fprintf(stderr, "slb-frame: --raw sends standard input; no FILE allowed\n");
		return 2;
	}
	out = to_stdout ? stdout : open_port();
	if (!out)
		return 1;
	if (raw) {
		size_t len;
		unsigned char *data = read_stream(stdin, &len);

		err = !data || fwrite(data, 1, len, out) != len || fflush(out);
		free(data);
	}
	for (int i = optind; i < argc; i++)
		if (send_file(out, argv[i]))
			err = 1;
	if (have_done && frame_write_done(out, done))
		err = 1;
	if (!to_stdout)
		fclose(out);
	return err ? 1 : 0;
}
