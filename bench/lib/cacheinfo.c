// SPDX-License-Identifier: GPL-2.0-or-later
/* The data caches a CPU sees (see cacheinfo.h). */
#include "cacheinfo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

uint64_t cacheinfo_parse_size(const char *s)
{
	char *end;
	unsigned long long n = strtoull(s, &end, 10);

	if (end == s)
		return 0;
	switch (*end) {
	case 'K': n <<= 10; end++; break;
	case 'M': n <<= 20; end++; break;
	case 'G': n <<= 30; end++; break;
	default: break;
	}
	return *end == '\0' || *end == '\n' ? (uint64_t)n : 0;
}

/* The first line of path into buf (newline dropped); 0 or -1. */
static int read_line(const char *path, char *buf, int len)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -1;
	ok = fgets(buf, len, f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static void add_level(struct cacheinfo *ci, int level, const char *type, uint64_t bytes, const char *shared)
{
	int i;

	if (ci->n >= CACHEINFO_MAX || level < 1 || !bytes)
		return;
	/* keep them by ascending level */
	for (i = ci->n; i > 0 && ci->c[i - 1].level > level; i--)
		ci->c[i] = ci->c[i - 1];
	ci->c[i].level = level;
	snprintf(ci->c[i].type, sizeof(ci->c[i].type), "%s", type);
	ci->c[i].bytes = bytes;
	snprintf(ci->c[i].shared, sizeof(ci->c[i].shared), "%s", shared);
	ci->n++;
}

static int from_sysfs(const char *sysroot, int cpu, struct cacheinfo *ci)
{
	char path[256], level[16], type[32], size[32], shared[64];

	for (int idx = 0; idx < 16; idx++) {
		int n = snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d/cache/index%d/", sysroot, cpu, idx);

		if (n < 0 || n > (int)sizeof(path) - 32)
			return -1;
		strcpy(path + n, "level");
		if (read_line(path, level, sizeof(level)))
			continue;
		strcpy(path + n, "type");
		if (read_line(path, type, sizeof(type)) || !strcmp(type, "Instruction"))
			continue;
		strcpy(path + n, "size");
		if (read_line(path, size, sizeof(size)))
			continue;
		strcpy(path + n, "shared_cpu_list");
		if (read_line(path, shared, sizeof(shared)))
			shared[0] = '\0';
		add_level(ci, atoi(level), type, cacheinfo_parse_size(size), shared);
	}
	return ci->n ? 0 : -1;
}

static int from_sysconf(struct cacheinfo *ci)
{
#ifdef _SC_LEVEL1_DCACHE_SIZE
	long l1 = sysconf(_SC_LEVEL1_DCACHE_SIZE), l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
	long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE), l4 = sysconf(_SC_LEVEL4_CACHE_SIZE);

	if (l1 > 0)
		add_level(ci, 1, "Data", (uint64_t)l1, "");
	if (l2 > 0)
		add_level(ci, 2, "Unified", (uint64_t)l2, "");
	if (l3 > 0)
		add_level(ci, 3, "Unified", (uint64_t)l3, "");
	if (l4 > 0)
		add_level(ci, 4, "Unified", (uint64_t)l4, "");
#endif
	return ci->n ? 0 : -1;
}

int cacheinfo_read(const char *sysroot, int cpu, struct cacheinfo *ci)
{
	memset(ci, 0, sizeof(*ci));
	if (!from_sysfs(sysroot ? sysroot : "/sys", cpu, ci)) {
		strcpy(ci->source, "sysfs");
		return 0;
	}
	memset(ci, 0, sizeof(*ci));
	if (!from_sysconf(ci)) {
		strcpy(ci->source, "sysconf");
		return 0;
	}
	return -1;
}
