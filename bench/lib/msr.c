// SPDX-License-Identifier: GPL-2.0-or-later
/* MSR access through /dev/cpu/N/msr; see msr.h. */
#include "msr.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int msr_access(int cpu, uint32_t msr, uint64_t *val, int write)
{
	char path[64];
	ssize_t n;
	int fd, e;

	snprintf(path, sizeof(path), "/dev/cpu/%d/msr", cpu);
	fd = open(path, write ? O_WRONLY : O_RDONLY);
	if (fd < 0)
		return errno;
	n = write ? pwrite(fd, val, sizeof(*val), (off_t)msr) : pread(fd, val, sizeof(*val), (off_t)msr);
	e = n < 0 ? errno : EIO;
	close(fd);
	return n == (ssize_t)sizeof(*val) ? 0 : e;
}
