/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KVMTOP_ZLIB_CODEC_H
#define KVMTOP_ZLIB_CODEC_H

/* Teach libtracecmd zlib if it was built without it. 0 or -1. */
int zlib_codec_register(void);
/* Blocks that could not be decompressed since start (cut or corrupt data). */
unsigned long zlib_codec_failures(void);

#endif
