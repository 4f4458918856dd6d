// SPDX-License-Identifier: GPL-2.0-or-later
/* key=value files; see kv.h. */
#include "kv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int kv_read(const char *path, struct kv *kv)
{
	char line[512];
	FILE *f = fopen(path, "r");

	kv->n = 0;
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f) && kv->n < KV_MAX) {
		char *eq = strchr(line, '=');

		if (!eq || eq == line || (size_t)(eq - line) >= sizeof(kv->key[0]))
			continue;
		line[strcspn(line, "\n")] = '\0';
		*eq = '\0';
		memcpy(kv->key[kv->n], line, (size_t)(eq - line) + 1);
		strncpy(kv->val[kv->n], eq + 1, sizeof(kv->val[0]) - 1);
		kv->val[kv->n][sizeof(kv->val[0]) - 1] = '\0';
		kv->n++;
	}
	fclose(f);
	return 0;
}

const char *kv_get(const struct kv *kv, const char *key, const char *def)
{
	for (int i = 0; i < kv->n; i++)
		if (!strcmp(kv->key[i], key))
			return kv->val[i];
	return def;
}

long long kv_get_ll(const struct kv *kv, const char *key, long long def)
{
	const char *v = kv_get(kv, key, NULL);
	char *end;
	long long x;

	if (!v || !*v)
		return def;
	x = strtoll(v, &end, 10);
	return *end && *end != '.' ? def : x;
}
