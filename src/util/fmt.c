// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>

#include "fmt.h"

void fmt_duration(double v, bool ns, int decimals, char *buf, size_t len)
{
	if (!ns)
		snprintf(buf, len, "%.0f", v);
	else if (v < 1e3)
		snprintf(buf, len, "%.0fns", v);
	else if (v < 1e6)
		snprintf(buf, len, "%.*fus", decimals, v / 1e3);
	else if (v < 1e9)
		snprintf(buf, len, "%.*fms", decimals, v / 1e6);
	else
		snprintf(buf, len, "%.2fs", v / 1e9);
}
