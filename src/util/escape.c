// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "escape.h"

/* Length of the valid UTF-8 sequence at s (1..4), or 0 if it is not one. */
static size_t utf8_len(const unsigned char *s)
{
	size_t n, i;
	unsigned int cp;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0)
		n = 2, cp = s[0] & 0x1f;
	else if ((s[0] & 0xf0) == 0xe0)
		n = 3, cp = s[0] & 0x0f;
	else if ((s[0] & 0xf8) == 0xf0)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates, beyond Unicode */
	if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	/* C1 controls are as dangerous to a terminal as C0 ones */
	if (cp >= 0x80 && cp < 0xa0)
		return 0;
	return n;
}

char *escape_text(const char *s, char *buf, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0;

	if (!len)
		return buf;
	while (*p) {
		size_t n = utf8_len(p);
		char tmp[8];
		size_t tn;

		if (n == 1 && *p >= 0x20 && *p != 0x7f && *p != '\\') {
			tmp[0] = *p;
			tn = 1;
		} else if (n == 1 && *p == '\\') {
			memcpy(tmp, "\\\\", 2);
			tn = 2;
		} else if (n > 1) {
			memcpy(tmp, p, n);
			tn = n;
		} else {
			n = 1;
			tn = snprintf(tmp, sizeof(tmp), "\\x%02x", *p);
		}
		if (o + tn >= len)
			break;
		memcpy(buf + o, tmp, tn);
		o += tn;
		p += n;
	}
	buf[o] = '\0';
	return buf;
}

void escape_json(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', f);
	while (*p) {
		size_t n = utf8_len(p);

		if (n > 1) {
			fwrite(p, 1, n, f);
			p += n;
			continue;
		}
		if (n == 0) {
			fputs("\\ufffd", f);
		} else if (*p == '"' || *p == '\\') {
			fputc('\\', f);
			fputc(*p, f);
		} else if (*p < 0x20 || *p == 0x7f) {
			fprintf(f, "\\u%04x", *p);
		} else {
			fputc(*p, f);
		}
		p++;
	}
	fputc('"', f);
}

void escape_csv(FILE *f, const char *s)
{
	char buf[512];
	const char *p;

	escape_text(s, buf, sizeof(buf));
	/* Quote what a spreadsheet would split or run as a formula. */
	if (!strpbrk(buf, ",\"") && !strchr("=+-@", buf[0])) {
		fputs(buf, f);
		return;
	}
	fputc('"', f);
	/*
	 * Quotes alone do not stop a spreadsheet evaluating "=cmd()": a
	 * leading ' makes the cell text (OWASP's defence against CSV
	 * injection).  buf[0] is never a tab or CR: escape_text made those \xNN.
	 */
	if (buf[0] && strchr("=+-@", buf[0]))
		fputc('\'', f);
	for (p = buf; *p; p++) {
		if (*p == '"')
			fputc('"', f);
		fputc(*p, f);
	}
	fputc('"', f);
}
