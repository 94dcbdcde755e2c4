// SPDX-License-Identifier: GPL-2.0
/*
 * The tests' own zlib codec for libtracecmd, written against zlib alone
 * and sharing no code with kvmtop's (src/sources/replay_zlib.c), so that a
 * recording the generator compresses is not written and read by the
 * same code.
 *
 * Built two ways:
 * - linked into kvmgen, which calls tc_zlib_register() before writing;
 * - with -DTC_ZLIB_PRELOAD as tests/tc_zlib.so, which registers itself
 *   when loaded: `LD_PRELOAD=tests/tc_zlib.so trace-cmd report FILE`
 *   lets Debian 12's trace-cmd (its libtracecmd has no zlib) read the
 *   zlib-compressed real recordings, which the tests use as an oracle
 *   independent of kvmtop.  trace-cmd exports the register function.
 */
#include <stdbool.h>
#include <string.h>
#include <zlib.h>

#include "sources/tracecmd_priv.h"

int tc_zlib_register(void);

static int tc_deflate(void *ctx, const void *in, int in_bytes, void *out, int out_bytes)
{
	uLongf n = (uLongf)out_bytes;

	if (compress2(out, &n, in, (uLong)in_bytes, 6) != Z_OK)
		return -1;
	return (int)n;
}

static int tc_inflate(void *ctx, const void *in, int in_bytes, void *out, int out_bytes)
{
	uLongf n = (uLongf)out_bytes;

	if (uncompress(out, &n, in, (uLong)in_bytes) != Z_OK)
		return -1;
	return (int)n;
}

static unsigned int tc_bound(void *ctx, unsigned int bytes)
{
	return (unsigned int)compressBound(bytes);
}

static bool tc_is_zlib(const char *name, const char *version)
{
	return name && strcmp(name, "zlib") == 0;
}

int tc_zlib_register(void)
{
	static struct tracecmd_compression_proto proto = {
		.weight = 5,
		.name = "zlib",
		.compress = tc_deflate,
		.uncompress = tc_inflate,
		.compress_size = tc_bound,
		.is_supported = tc_is_zlib,
	};

	/* a libtracecmd built with zlib keeps its own */
	if (tracecmd_compress_is_supported("zlib", NULL))
		return 0;
	proto.version = zlibVersion();
	return tracecmd_compress_proto_register(&proto);
}

#ifdef TC_ZLIB_PRELOAD
static void __attribute__((constructor)) tc_zlib_preload(void)
{
	tc_zlib_register();
}
#endif
