// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests of the output-channel framing (bench/lib/frame.c). */
#include "lib/frame.h"
#include "check.h"

#include <stdlib.h>
#include <string.h>

static size_t encode(char *buf, size_t cap, int with_done)
{
	FILE *f = fmemopen(buf, cap, "w");
	size_t n;

	frame_write(f, "hist.txt", (const unsigned char *)"000001 000005\n", 14);
	frame_write(f, "empty", (const unsigned char *)"", 0);
	frame_write(f, "bin", (const unsigned char *)"\n@@SLB-END bin@@\n\0x", 19);
	if (with_done)
		frame_write_done(f, 7);
	n = (size_t)ftell(f);
	fclose(f);
	return n;
}

int main(void)
{
	static struct frame_result r;
	char buf[1024];
	size_t n;

	/* Known values of cksum(1): empty input and "hello\n". */
	CHECK(posix_cksum((const unsigned char *)"", 0) == 4294967295u, "cksum of empty input is 4294967295");
	CHECK(posix_cksum((const unsigned char *)"hello\n", 6) == 3015617425u, "cksum of 'hello\\n' matches cksum(1)");

	n = encode(buf, sizeof(buf), 1);
	frame_parse((unsigned char *)buf, n, &r);
	CHECK(r.complete && r.done && r.job_status == 7, "round trip is complete with job status 7");
	CHECK(r.nfiles == 3, "three frames found (got %d)", r.nfiles);
	CHECK(r.nfiles == 3 && r.files[0].len == 14 && !memcmp(buf + r.files[0].offset, "000001 000005\n", 14),
	      "first frame's payload is intact");
	CHECK(r.nfiles == 3 && r.files[1].len == 0 && r.files[1].status == FRAME_OK, "empty frame is ok");
	CHECK(r.nfiles == 3 && r.files[2].len == 19 && r.files[2].status == FRAME_OK,
	      "payload containing an END marker and NUL is framed by length");

	frame_parse((unsigned char *)buf, encode(buf, sizeof(buf), 0), &r);
	CHECK(!r.complete && !r.done, "no DONE marker: incomplete");

	n = encode(buf, sizeof(buf), 1);
	frame_parse((unsigned char *)buf, 40, &r);
	CHECK(!r.complete && r.nfiles >= 1 && r.files[0].status == FRAME_TRUNCATED, "output cut inside a frame: truncated");

	buf[strstr(buf, "000005") - buf] ^= 1;
	frame_parse((unsigned char *)buf, n, &r);
	CHECK(!r.complete && r.files[0].status == FRAME_BAD_CKSUM, "flipped payload byte: bad cksum");

	strcpy(buf, "@@SLB-BEGIN ../etc 1 1@@\nx\n@@SLB-END ../etc@@\n@@SLB-DONE 0@@\n");
	frame_parse((unsigned char *)buf, strlen(buf), &r);
	CHECK(!r.complete && r.files[0].status == FRAME_BAD_HEADER, "path-like frame name rejected");

	n = encode(buf, sizeof(buf), 0);
	n += (size_t)sprintf(buf + n, "@@SLB-BEGIN empty 0 4294967295@@\n\n@@SLB-END empty@@\n@@SLB-DONE 0@@\n");
	frame_parse((unsigned char *)buf, n, &r);
	CHECK(!r.complete && r.files[3].status == FRAME_DUPLICATE, "duplicate frame name flagged");

	CHECK(frame_write(stdout, "a/b", (const unsigned char *)"", 0) == -1, "encoder refuses a name with '/'");
	CHECK_EXIT();
}
