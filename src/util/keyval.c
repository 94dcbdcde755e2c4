// SPDX-License-Identifier: GPL-2.0
/* "Key: value" lines (keyval.h). */
#include <stdlib.h>
#include <string.h>

#include "keyval.h"

bool keyval_find(const char *text, const char *key, uint64_t *v)
{
	size_t len = strlen(key);
	const char *p = text;
	char *end;

	while (p && *p) {
		if (!strncmp(p, key, len)) {
			const char *q = p + len;

			while (*q == ' ' || *q == '\t' || *q == '=')
				q++;
			if (*q >= '0' && *q <= '9') {
				*v = strtoull(q, &end, 10);
				return true;
			}
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return false;
}
