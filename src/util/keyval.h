/* SPDX-License-Identifier: GPL-2.0 */
/* "Key: value" lines, as /proc's status and io files and cgroupfs's write them. */
#ifndef KVMTOP_KEYVAL_H
#define KVMTOP_KEYVAL_H

#include <stdbool.h>
#include <stdint.h>

/*
 * The number after key at a line's start in text (key with its ':' where
 * the file writes one; spaces, tabs or '=' may come between): true with
 * *v, false if no line has it.
 */
bool keyval_find(const char *text, const char *key, uint64_t *v);

#endif
