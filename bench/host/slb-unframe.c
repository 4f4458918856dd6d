// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * slb-unframe: decode the guest's framed output (ttyS1 captured by
 * bench/target/run-guest.sh) into one file per frame, and say whether the output
 * is complete: every frame whole with a matching length and cksum, and the
 * job's DONE marker present.
 *
 * Exit status: 0 complete, 1 incomplete or I/O error, 2 usage error.
 */
#include "../lib/frame.h"
#include "../lib/io.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: slb-unframe [--outdir DIR] [--json] FILE\n"
		"Decode the framed guest output in FILE.\n\n"
		"  -o, --outdir DIR  write each complete frame to DIR/<name>\n"
		"  -j, --json        print the result as JSON (default: text)\n"
		"  -h, --help        this text\n\n"
		"Exit status: 0 complete, 1 incomplete or error, 2 usage error.\n");
}

static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf;

	if (!f)
		return NULL;
	buf = read_stream(f, len);
	fclose(f);
	return buf;
}

static int write_file(const char *dir, const struct frame_file *f, const unsigned char *buf)
{
	char path[4096];
	FILE *out;
	int ok;

	snprintf(path, sizeof(path), "%s/%s", dir, f->name);
	out = fopen(path, "wb");
	if (!out) {
		fprintf(stderr, "slb-unframe: cannot write %s: %s\n", path, strerror(errno));
		return -1;
	}
	ok = fwrite(buf + f->offset, 1, f->len, out) == f->len;
	ok = (fclose(out) == 0) && ok;
	if (!ok)
		fprintf(stderr, "slb-unframe: short write to %s\n", path);
	return ok ? 0 : -1;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "outdir", required_argument, NULL, 'o' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *outdir = NULL;
	int json = 0, c, err = 0;
	static struct frame_result res;
	unsigned char *buf;
	size_t len;

	while ((c = getopt_long(argc, argv, "o:jh", opts, NULL)) != -1) {
		switch (c) {
		case 'o': outdir = optarg; break;
		case 'j': json = 1; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "slb-unframe: expected exactly one FILE, got %d\n", argc - optind);
		usage(stderr);
		return 2;
	}
	buf = slurp(argv[optind], &len);
	if (!buf) {
		fprintf(stderr, "slb-unframe: cannot read %s: %s\n", argv[optind], strerror(errno));
		return 1;
	}
	frame_parse(buf, len, &res);
	if (outdir) {
		if (mkdir(outdir, 0755) && errno != EEXIST) {
			fprintf(stderr, "slb-unframe: cannot create %s: %s\n", outdir, strerror(errno));
			free(buf);
			return 1;
		}
		for (int i = 0; i < res.nfiles; i++)
			if (res.files[i].status == FRAME_OK && write_file(outdir, &res.files[i], buf))
				err = 1;
	}
	if (json) {
		printf("{\n  \"complete\": %s,\n  \"done\": %s,\n  \"job_status\": ",
		       res.complete ? "true" : "false", res.done ? "true" : "false");
		if (res.done)
			printf("%d", res.job_status);
		else
			printf("null");
		printf(",\n  \"files\": [");
		for (int i = 0; i < res.nfiles; i++)
			printf("%s\n    {\"name\": \"%s\", \"bytes\": %zu, \"cksum\": %u, \"status\": \"%s\"}",
			       i ? "," : "", res.files[i].name, res.files[i].len,
			       (unsigned)res.files[i].cksum, frame_status_name(res.files[i].status));
		printf("%s]\n}\n", res.nfiles ? "\n  " : "");
	} else {
		for (int i = 0; i < res.nfiles; i++)
			printf("%-24s %10zu bytes  %s\n", res.files[i].name, res.files[i].len,
			       frame_status_name(res.files[i].status));
		if (res.done)
			printf("job exit status %d\n", res.job_status);
		else
			printf("no DONE marker: the job did not finish sending\n");
		printf("%s\n", res.complete ? "complete" : "incomplete");
	}
	free(buf);
	return (res.complete && !err) ? 0 : 1;
}
