/* SPDX-License-Identifier: GPL-2.0-or-later */
/* key=value files (one pair per line), as scripts/rep-info.sh writes them. */
#ifndef SLB_KV_H
#define SLB_KV_H

#include <stddef.h>

#define KV_MAX 32

struct kv {
	int n;
	char key[KV_MAX][32];
	char val[KV_MAX][256];
};

/* Read path into kv; 0, or -1 if unreadable. Unknown lines are skipped. */
int kv_read(const char *path, struct kv *kv);

/* The value of key, or def when absent. */
const char *kv_get(const struct kv *kv, const char *key, const char *def);
long long kv_get_ll(const struct kv *kv, const char *key, long long def);

#endif
