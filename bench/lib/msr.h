/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Model-specific registers through /dev/cpu/N/msr (guest side; root). */
#ifndef SLB_MSR_H
#define SLB_MSR_H

#include <stdint.h>

/*
 * Read (write == 0) or write MSR msr of CPU cpu. 0 on success, else an
 * errno value: EIO means the CPU raised #GP (absent MSR, reserved bit);
 * ENOENT or ENXIO, no msr driver or no such CPU.
 */
int msr_access(int cpu, uint32_t msr, uint64_t *val, int write);

/* The same in two steps, for a caller that keeps the device open: */
int msr_open(int cpu);	/* a descriptor, or -errno */
int msr_fd_access(int fd, uint32_t msr, uint64_t *val, int write);

#endif
