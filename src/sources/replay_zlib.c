// SPDX-License-Identifier: GPL-2.0
/*
 * A zlib codec for libtracecmd.  Debian 12's libtracecmd is built
 * without zlib, so it cannot read trace-cmd 3.2 recordings, which are
 * zlib-compressed by default.  Registering this codec at start-up makes
 * them readable with the library as shipped.  When the library already
 * has zlib, registration is refused and its own codec is used.
 */
#include <string.h>
#include <zlib.h>

#include "tracecmd_priv.h"
#include "replay_zlib.h"

static int zc_compress(void *ctx, const void *in, int in_bytes, void *out, int out_bytes)
{
	uLongf n = out_bytes;

	if (in_bytes < 0 || out_bytes < 0)
		return -1;
	if (compress2(out, &n, in, in_bytes, Z_BEST_COMPRESSION) != Z_OK)
		return -1;
	return n;
}

static unsigned long failures;

static int zc_uncompress(void *ctx, const void *in, int in_bytes, void *out, int out_bytes)
{
	uLongf n = out_bytes;

	/*
	 * A cut or corrupt block is an error, never a partial page.  The
	 * library skips a block it cannot read, so count it for the caller.
	 */
	if (in_bytes < 0 || out_bytes < 0 || uncompress(out, &n, in, in_bytes) != Z_OK) {
		failures++;
		return -1;
	}
	return n;
}

unsigned long zlib_codec_failures(void)
{
	return failures;
}

static unsigned int zc_bound(void *ctx, unsigned int bytes)
{
	return compressBound(bytes);
}

static bool zc_supported(const char *name, const char *version)
{
	return name && !strcmp(name, "zlib");
}

int zlib_codec_register(void)
{
	static struct tracecmd_compression_proto proto = {
		.weight = 10,
		.name = "zlib",
		.compress = zc_compress,
		.uncompress = zc_uncompress,
		.compress_size = zc_bound,
		.is_supported = zc_supported,
	};

	if (tracecmd_compress_is_supported("zlib", NULL))
		return 0;
	proto.version = zlibVersion();
	return tracecmd_compress_proto_register(&proto);
}
