/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Strings that come from guests, /proc or recordings (VM names, thread
 * names) are escaped before they reach a terminal, a CSV or a JSON
 * document: no control character or broken UTF-8 gets through.
 */
#ifndef KVMTOP_ESCAPE_H
#define KVMTOP_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

/* Printable text: control bytes and invalid UTF-8 as \xNN, '\' as "\\". */
char *escape_text(const char *s, char *buf, size_t len);
/* A JSON string, quotes included. */
void escape_json(FILE *f, const char *s);
/* A CSV field: text-escaped, then quoted when it needs it (RFC 4180). */
void escape_csv(FILE *f, const char *s);

#endif
