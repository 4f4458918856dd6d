// SPDX-License-Identifier: GPL-2.0-or-later
/* Decoder for the guest's framed output channel; see frame.h. */
#include "frame.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One byte into the CRC-32/CKSUM register (polynomial 0x04C11DB7, MSB first). */
static uint32_t crc_byte(uint32_t crc, unsigned char byte)
{
	crc ^= (uint32_t)byte << 24;
	for (int b = 0; b < 8; b++)
		crc = (crc & 0x80000000u) ? (crc << 1) ^ 0x04C11DB7u : crc << 1;
	return crc;
}

uint32_t posix_cksum(const unsigned char *buf, size_t len)
{
	uint32_t crc = 0;

	for (size_t i = 0; i < len; i++)
		crc = crc_byte(crc, buf[i]);
	/* then the length, least significant byte first, without leading zeros */
	for (size_t n = len; n; n >>= 8)
		crc = crc_byte(crc, (unsigned char)(n & 0xff));
	return ~crc;
}

const char *frame_status_name(enum frame_status s)
{
	switch (s) {
	case FRAME_OK: return "ok";
	case FRAME_TRUNCATED: return "truncated";
	case FRAME_BAD_CKSUM: return "bad-cksum";
	case FRAME_BAD_HEADER: return "bad-header";
	case FRAME_DUPLICATE: return "duplicate";
	}
	return "unknown";
}

int frame_name_ok(const char *n)
{
	if (!*n || *n == '.')
		return 0;
	for (; *n; n++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-+", *n))
			return 0;
	return 1;
}

/* Find "@@SLB-<word>" at the start of a line, at or after pos. */
static const unsigned char *find_marker(const unsigned char *buf, size_t len, size_t pos)
{
	static const char m[] = "@@SLB-";
	while (pos + sizeof(m) - 1 <= len) {
		const unsigned char *p = memmem(buf + pos, len - pos, m, sizeof(m) - 1);
		if (!p)
			return NULL;
		if (p == buf || p[-1] == '\n')
			return p;
		pos = (size_t)(p - buf) + 1;
	}
	return NULL;
}

/* Copy the line at p (up to '\n', not included) into line; 0 if no '\n'. */
static int get_line(const unsigned char *p, const unsigned char *end, char *line, size_t cap, size_t *used)
{
	const unsigned char *nl = memchr(p, '\n', (size_t)(end - p));
	size_t n;

	if (!nl)
		return 0;
	n = (size_t)(nl - p);
	if (n >= cap)
		n = cap - 1;
	memcpy(line, p, n);
	line[n] = '\0';
	*used = (size_t)(nl - p) + 1;
	return 1;
}

static struct frame_file *add_file(struct frame_result *res, const char *name)
{
	struct frame_file *f;

	if (res->nfiles >= FRAME_MAX_FILES)
		return NULL;
	f = &res->files[res->nfiles++];
	memset(f, 0, sizeof(*f));
	snprintf(f->name, sizeof(f->name), "%s", name);
	for (int i = 0; i < res->nfiles - 1; i++)
		if (!strcmp(res->files[i].name, f->name))
			f->status = FRAME_DUPLICATE;
	return f;
}

/* Parse one BEGIN frame at p; returns the position after it. */
static size_t parse_begin(const unsigned char *buf, size_t len, size_t at, struct frame_result *res)
{
	char line[256], name[FRAME_NAME_MAX + 1], end_line[FRAME_NAME_MAX + 32], tail;
	unsigned long long n;
	unsigned long ck;
	size_t used, pos;
	struct frame_file *f;

	if (!get_line(buf + at, buf + len, line, sizeof(line), &used)) {
		f = add_file(res, "?");
		if (f)
			f->status = FRAME_TRUNCATED;
		return len;
	}
	if (sscanf(line, "@@SLB-BEGIN %64s %llu %lu@@%c", name, &n, &ck, &tail) != 3 || !frame_name_ok(name)) {
		f = add_file(res, "?");
		if (f)
			f->status = FRAME_BAD_HEADER;
		return at + used;
	}
	f = add_file(res, name);
	if (!f)
		return at + used;
	pos = at + used;
	f->offset = pos;
	f->len = (size_t)n;
	f->cksum = (uint32_t)ck;
	if (n > len - pos) {
		f->status = FRAME_TRUNCATED;
		return len;
	}
	pos += (size_t)n;
	snprintf(end_line, sizeof(end_line), "\n@@SLB-END %s@@\n", name);
	if (len - pos < strlen(end_line) || memcmp(buf + pos, end_line, strlen(end_line))) {
		if (f->status == FRAME_OK)
			f->status = FRAME_TRUNCATED;
		return pos;
	}
	if (f->status == FRAME_OK && posix_cksum(buf + f->offset, f->len) != f->cksum)
		f->status = FRAME_BAD_CKSUM;
	return pos + strlen(end_line);
}

void frame_parse(const unsigned char *buf, size_t len, struct frame_result *res)
{
	size_t pos = 0;
	const unsigned char *m;

	memset(res, 0, sizeof(*res));
	while ((m = find_marker(buf, len, pos))) {
		size_t at = (size_t)(m - buf), used;
		char line[64];
		int st;
		char tail;

		if (!strncmp((const char *)m, "@@SLB-BEGIN ", 12) ||
		    (len - at < 12 && !memcmp(m, "@@SLB-BEGIN ", len - at))) {
			pos = parse_begin(buf, len, at, res);
		} else if (get_line(m, buf + len, line, sizeof(line), &used) &&
			   sscanf(line, "@@SLB-DONE %d@@%c", &st, &tail) == 1) {
			res->done = 1;
			res->job_status = st;
			pos = at + used;
		} else {
			pos = at + 1;
		}
	}
	res->complete = res->done;
	for (int i = 0; i < res->nfiles; i++)
		if (res->files[i].status != FRAME_OK)
			res->complete = 0;
}

int frame_write(FILE *out, const char *name, const unsigned char *data, size_t len)
{
	if (!frame_name_ok(name) || strlen(name) >= FRAME_NAME_MAX)
		return -1;
	if (fprintf(out, "@@SLB-BEGIN %s %zu %u@@\n", name, len, (unsigned)posix_cksum(data, len)) < 0)
		return -1;
	if (fwrite(data, 1, len, out) != len)
		return -1;
	if (fprintf(out, "\n@@SLB-END %s@@\n", name) < 0)
		return -1;
	return fflush(out) ? -1 : 0;
}

int frame_write_done(FILE *out, int status)
{
	if (fprintf(out, "@@SLB-DONE %d@@\n", status) < 0)
		return -1;
	return fflush(out) ? -1 : 0;
}
