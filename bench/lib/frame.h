/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Decoder for the guest's framed output channel (see bench/guest/slb-lib.sh):
 *   @@SLB-BEGIN <name> <bytes> <cksum>@@\n<raw bytes>\n@@SLB-END <name>@@\n
 *   @@SLB-DONE <status>@@\n
 * <cksum> is the POSIX cksum(1) CRC. Anything outside frames is ignored.
 */
#ifndef SLB_FRAME_H
#define SLB_FRAME_H

#include <stddef.h>
#include <stdint.h>

#define FRAME_NAME_MAX 64
#define FRAME_MAX_FILES 256

enum frame_status {
	FRAME_OK = 0,
	FRAME_TRUNCATED,	/* fewer bytes than announced, or no END marker */
	FRAME_BAD_CKSUM,	/* bytes arrived but their CRC differs */
	FRAME_BAD_HEADER,	/* BEGIN line unparsable or bad name */
	FRAME_DUPLICATE,	/* a second frame with the same name */
};

struct frame_file {
	char name[FRAME_NAME_MAX];
	size_t offset;		/* of the payload in the input buffer */
	size_t len;		/* announced length */
	uint32_t cksum;		/* announced cksum */
	enum frame_status status;
};

struct frame_result {
	struct frame_file files[FRAME_MAX_FILES];
	int nfiles;
	int done;		/* an SLB-DONE marker was seen */
	int job_status;		/* its value */
	int complete;		/* done and every file FRAME_OK */
};

#include <stdio.h>

/* POSIX cksum(1): CRC-32/CKSUM over the data followed by its length. */
uint32_t posix_cksum(const unsigned char *buf, size_t len);

/* Parse buf; fills res. Never fails: problems are recorded per file. */
void frame_parse(const unsigned char *buf, size_t len, struct frame_result *res);

const char *frame_status_name(enum frame_status s);

/* Write one frame for name/data to out; 0 on success, -1 on error. */
int frame_write(FILE *out, const char *name, const unsigned char *data, size_t len);

/* Write the DONE marker with the job's exit status. */
int frame_write_done(FILE *out, int status);

/* 1 if name is allowed as a frame name (a plain file name). */
int frame_name_ok(const char *name);

#endif
