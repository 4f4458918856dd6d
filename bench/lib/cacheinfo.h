/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The data caches a CPU sees, the one reader for the calibration: sysfs
 * (/sys/devices/system/cpu/cpuN/cache/index*: level, type, size,
 * shared_cpu_list), else sysconf's _SC_LEVELn_*CACHE_SIZE (what getconf
 * prints). Instruction caches are left out.
 */
#ifndef SLB_CACHEINFO_H
#define SLB_CACHEINFO_H

#include <stdint.h>

#define CACHEINFO_MAX 8

struct cache_level {
	int level;		/* 1, 2, 3, ... */
	char type[16];		/* "Data" or "Unified" */
	uint64_t bytes;
	char shared[64];	/* CPUs sharing it ("0-1"); "" when unknown */
};

struct cacheinfo {
	int n;			/* levels found, by ascending level */
	char source[16];	/* "sysfs" or "sysconf" */
	struct cache_level c[CACHEINFO_MAX];
};

/*
 * The data and unified caches of CPU cpu under sysfs root sysroot (NULL:
 * "/sys"); sysconf when sysfs has none. 0, or -1 when neither says.
 */
int cacheinfo_read(const char *sysroot, int cpu, struct cacheinfo *ci);

/* "48K", "2048K", "1M", "491520K" (sysfs spelling) as bytes; 0 if malformed. */
uint64_t cacheinfo_parse_size(const char *s);

#endif
