/*
 * parquet_codec: page compression for the Parquet writer and reader.
 * snappy (Spark's default) through libsnappy's C API, zstd through libzstd
 * (level 3, as parquet-mr's default), gzip through zlib, and none.
 *
 * Decompression is told the exact size the page header promises and
 * fails (SL_EDATA) on any other size, so a corrupt page can neither
 * overrun the caller's buffer nor leave part of it unset.
 */
#include "formats/parquet_int.h"

#include <limits.h>
#include <snappy-c.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>
#include <zstd.h>

static const char *const codec_names[] = {
	[PQ_UNCOMPRESSED] = "UNCOMPRESSED",
	[PQ_SNAPPY] = "SNAPPY",
	[PQ_GZIP] = "GZIP",
	[PQ_LZO] = "LZO",
	[PQ_BROTLI] = "BROTLI",
	[PQ_LZ4] = "LZ4",
	[PQ_ZSTD] = "ZSTD",
	[PQ_LZ4_RAW] = "LZ4_RAW",
};

int pq_codec_parse(const char *name)
{
	if (name == NULL || strcasecmp(name, "snappy") == 0)
		return PQ_SNAPPY;
	if (strcasecmp(name, "none") == 0 ||
	    strcasecmp(name, "uncompressed") == 0)
		return PQ_UNCOMPRESSED;
	if (strcasecmp(name, "zstd") == 0)
		return PQ_ZSTD;
	if (strcasecmp(name, "gzip") == 0)
		return PQ_GZIP;
	return -1;
}

const char *pq_codec_name(int codec)
{
	if (codec < 0 || codec > PQ_LZ4_RAW)
		return "UNKNOWN";
	return codec_names[codec];
}

static int gzip_compress(const void *p, size_t n, sl_buf *out, sl_err *err)
{
	z_stream z = { 0 };
	uLong cap = compressBound((uLong)n) + 32;
	int rc;
	if (!sl_buf_reserve(out, cap))
		return sl_err_nomem(err);
	/* 15 + 16: a gzip header, as parquet-mr writes */
	if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
	    Z_OK)
		return sl_err_nomem(err);
	z.next_in = (Bytef *)(uintptr_t)p;
	z.avail_in = (uInt)n;
	z.next_out = (Bytef *)out->p + out->len;
	z.avail_out = (uInt)cap;
	rc = deflate(&z, Z_FINISH);
	if (rc == Z_STREAM_END)
		out->len += z.total_out;
	deflateEnd(&z);
	return rc == Z_STREAM_END
		   ? 0
		   : sl_err_set(err, SL_EINTERNAL, "gzip compression failed");
}

int pq_compress(int codec, const void *p, size_t n, sl_buf *out, sl_err *err)
{
	size_t cap;
	if (n > INT32_MAX)
		return sl_err_set(err, SL_EINVAL,
				  "page of %zu bytes is too big", n);
	switch (codec) {
	case PQ_UNCOMPRESSED: sl_buf_add(out, p, n); return 0;
	case PQ_SNAPPY:
		cap = snappy_max_compressed_length(n);
		if (!sl_buf_reserve(out, cap))
			return sl_err_nomem(err);
		if (snappy_compress(p, n, out->p + out->len, &cap) != SNAPPY_OK)
			return sl_err_set(err, SL_EINTERNAL,
					  "snappy compression failed");
		out->len += cap;
		return 0;
	case PQ_ZSTD: {
		size_t r;
		cap = ZSTD_compressBound(n);
		if (!sl_buf_reserve(out, cap))
			return sl_err_nomem(err);
		r = ZSTD_compress(out->p + out->len, cap, p, n, 3);
		if (ZSTD_isError(r))
			return sl_err_set(err, SL_EINTERNAL,
					  "zstd compression failed: %s",
					  ZSTD_getErrorName(r));
		out->len += r;
		return 0;
	}
	case PQ_GZIP: return gzip_compress(p, n, out, err);
	default:
		return sl_err_set(err, SL_EINVAL,
				  "unsupported compression codec '%s'",
				  pq_codec_name(codec));
	}
}

static int gzip_decompress(const void *src, size_t n, void *dst, size_t want,
			   sl_err *err)
{
	z_stream z = { 0 };
	int rc;
	/* 15 + 32: accept a gzip or a zlib header */
	if (inflateInit2(&z, 15 + 32) != Z_OK)
		return sl_err_nomem(err);
	z.next_in = (Bytef *)(uintptr_t)src;
	z.avail_in = (uInt)n;
	z.next_out = dst;
	z.avail_out = (uInt)want;
	rc = inflate(&z, Z_FINISH);
	inflateEnd(&z);
	if (rc != Z_STREAM_END || z.total_out != want)
		return sl_err_set(err, SL_EDATA, "corrupt gzip page");
	return 0;
}

int pq_decompress(int codec, const void *src, size_t n, void *dst, size_t want,
		  sl_err *err)
{
	size_t got;
	switch (codec) {
	case PQ_UNCOMPRESSED:
		if (n != want)
			return sl_err_set(err, SL_EDATA,
					  "page is %zu bytes, its header says "
					  "%zu",
					  n, want);
		memcpy(dst, src, n);
		return 0;
	case PQ_SNAPPY:
		if (snappy_uncompressed_length(src, n, &got) != SNAPPY_OK ||
		    got != want)
			return sl_err_set(err, SL_EDATA, "corrupt snappy page");
		if (snappy_uncompress(src, n, dst, &got) != SNAPPY_OK ||
		    got != want)
			return sl_err_set(err, SL_EDATA, "corrupt snappy page");
		return 0;
	case PQ_ZSTD:
		got = ZSTD_decompress(dst, want, src, n);
		if (ZSTD_isError(got) || got != want)
			return sl_err_set(err, SL_EDATA, "corrupt zstd page");
		return 0;
	case PQ_GZIP: return gzip_decompress(src, n, dst, want, err);
	default:
		return sl_err_set(err, SL_EINVAL,
				  "unsupported compression codec '%s'",
				  pq_codec_name(codec));
	}
}
