// SPDX-License-Identifier: GPL-2.0-or-later
/* MSR access through /dev/cpu/N/msr; see msr.h. */
#include "msr.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int msr_open(int cpu)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/dev/cpu/%d/msr", cpu);
	fd = open(path, O_RDWR);
	return fd < 0 ? -errno : fd;
}

int msr_fd_access(int fd, uint32_t msr, uint64_t *val, int write)
{
	ssize_t n = write ? pwrite(fd, val, sizeof(*val), (off_t)msr) : pread(fd, val, sizeof(*val), (off_t)msr);

	if (n == (ssize_t)sizeof(*val))
		return 0;
	return n < 0 ? errno : EIO;
}

int msr_access(int cpu, uint32_t msr, uint64_t *val, int write)
{
	int fd = msr_open(cpu), e;

	if (fd < 0)
		return -fd;
	e = msr_fd_access(fd, msr, val, write);
	close(fd);
	return e;
}
