/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Minimal check macro for the C unit tests: prints "ok - NAME" or
 * "not ok - NAME" (tests/lib.sh numbers them) and counts failures.
 */
#ifndef SLB_CHECK_H
#define SLB_CHECK_H

#include <stdio.h>

static int check_failures;

#define CHECK(cond, ...)                                              \
	do {                                                          \
		int ok_ = !!(cond);                                   \
		printf("%s - ", ok_ ? "ok" : "not ok");               \
		printf(__VA_ARGS__);                                  \
		printf("\n");                                         \
		if (!ok_) {                                           \
			printf("# failed: %s (%s:%d)\n", #cond,       \
			       __FILE__, __LINE__);                   \
			check_failures++;                             \
		}                                                     \
	} while (0)

#define CHECK_EXIT() return check_failures ? 1 : 0

#endif
