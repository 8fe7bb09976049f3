/*
 * parquet_int: internals shared by parquet_thrift.c, parquet_codec.c,
 * parquet_write.c and parquet_read.c.  Never included from outside the
 * parquet module; other modules use parquet.h.
 *
 * The footer structs mirror parquet-format's parquet.thrift, keeping only
 * the fields streamlab writes or reads; field ids are in parquet_thrift.c
 * next to the code that encodes and decodes them.  Decoded structs point
 * into the file's bytes (names, statistics) and into arrays owned by the
 * pq_meta they belong to: pq_meta_release frees them all at once.
 */
#ifndef SL_PARQUET_INT_H
#define SL_PARQUET_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/err.h"

/* parquet.thrift enums (the values are the file format's). */
enum pq_ptype {
	PQ_BOOLEAN = 0,
	PQ_INT32 = 1,
	PQ_INT64 = 2,
	PQ_INT96 = 3,
	PQ_FLOAT = 4,
	PQ_DOUBLE = 5,
	PQ_BYTE_ARRAY = 6,
	PQ_FLBA = 7
};
enum pq_rep { PQ_REQUIRED = 0, PQ_OPTIONAL = 1, PQ_REPEATED = 2 };
enum pq_conv {
	PQ_CT_NONE = -1,
	PQ_CT_UTF8 = 0,
	PQ_CT_MAP = 1,
	PQ_CT_MAP_KEY_VALUE = 2,
	PQ_CT_LIST = 3,
	PQ_CT_ENUM = 4,
	PQ_CT_DECIMAL = 5,
	PQ_CT_DATE = 6,
	PQ_CT_TIME_MILLIS = 7,
	PQ_CT_TIME_MICROS = 8,
	PQ_CT_TIMESTAMP_MILLIS = 9,
	PQ_CT_TIMESTAMP_MICROS = 10,
	PQ_CT_UINT_8 = 11,
	PQ_CT_UINT_16 = 12,
	PQ_CT_UINT_32 = 13,
	PQ_CT_UINT_64 = 14,
	PQ_CT_INT_8 = 15,
	PQ_CT_INT_16 = 16,
	PQ_CT_INT_32 = 17,
	PQ_CT_INT_64 = 18,
	PQ_CT_JSON = 19,
	PQ_CT_BSON = 20
};
/* LogicalType union members (field ids of the union). */
enum pq_logical {
	PQ_LT_NONE = 0,
	PQ_LT_STRING = 1,
	PQ_LT_MAP = 2,
	PQ_LT_LIST = 3,
	PQ_LT_ENUM = 4,
	PQ_LT_DECIMAL = 5,
	PQ_LT_DATE = 6,
	PQ_LT_TIME = 7,
	PQ_LT_TIMESTAMP = 8,
	PQ_LT_INTEGER = 10,
	PQ_LT_UNKNOWN = 11,
	PQ_LT_JSON = 12,
	PQ_LT_BSON = 13,
	PQ_LT_UUID = 14
};
enum pq_unit { PQ_MILLIS = 1, PQ_MICROS = 2, PQ_NANOS = 3 };
enum pq_codec {
	PQ_UNCOMPRESSED = 0,
	PQ_SNAPPY = 1,
	PQ_GZIP = 2,
	PQ_LZO = 3,
	PQ_BROTLI = 4,
	PQ_LZ4 = 5,
	PQ_ZSTD = 6,
	PQ_LZ4_RAW = 7
};
enum pq_encoding {
	PQ_PLAIN = 0,
	PQ_PLAIN_DICTIONARY = 2,
	PQ_RLE = 3,
	PQ_BIT_PACKED = 4,
	PQ_DELTA_BINARY_PACKED = 5,
	PQ_DELTA_LENGTH_BYTE_ARRAY = 6,
	PQ_DELTA_BYTE_ARRAY = 7,
	PQ_RLE_DICTIONARY = 8,
	PQ_BYTE_STREAM_SPLIT = 9
};
enum pq_page_type {
	PQ_DATA_PAGE = 0,
	PQ_INDEX_PAGE = 1,
	PQ_DICTIONARY_PAGE = 2,
	PQ_DATA_PAGE_V2 = 3
};

/* A byte string inside the file (or inside a writer's buffer). */
typedef struct pq_bytes {
	const uint8_t *p;
	uint32_t len;
	bool set;
} pq_bytes;

typedef struct pq_schema_el {
	int type; /* enum pq_ptype, or -1 for a group */
	int32_t type_length;
	int rep; /* enum pq_rep, -1 when absent (the root) */
	pq_bytes name;
	int32_t num_children; /* -1 when absent (a leaf) */
	int converted;        /* enum pq_conv */
	int32_t scale, precision;
	int logical;                    /* enum pq_logical */
	int lt_unit;                    /* TIME/TIMESTAMP unit */
	bool lt_utc;                    /* TIME/TIMESTAMP isAdjustedToUTC */
	int lt_bits;                    /* INTEGER bitWidth */
	bool lt_signed;                 /* INTEGER isSigned */
	int32_t lt_scale, lt_precision; /* DECIMAL */
} pq_schema_el;

typedef struct pq_stats {
	pq_bytes min_value, max_value;
	int64_t null_count; /* -1 when absent */
} pq_stats;

typedef struct pq_column_meta {
	int type;
	int nencodings;
	int encodings[16]; /* first 16 kept; the rest are only counted */
	int npath;
	pq_bytes path[8]; /* path_in_schema (first 8 kept) */
	int codec;
	int64_t num_values;
	int64_t total_uncompressed_size;
	int64_t total_compressed_size;
	int64_t data_page_offset;
	int64_t dictionary_page_offset; /* -1 when absent */
	pq_stats stats;
	bool has_stats;
} pq_column_meta;

typedef struct pq_column_chunk {
	int64_t file_offset;
	bool has_meta;
	pq_column_meta meta;
} pq_column_chunk;

typedef struct pq_row_group {
	int ncolumns;
	pq_column_chunk *columns;
	int64_t total_byte_size;
	int64_t num_rows;
	int64_t file_offset;
	int64_t total_compressed_size;
} pq_row_group;

typedef struct pq_kv {
	pq_bytes key, value;
} pq_kv;

typedef struct pq_meta {
	int32_t version;
	int nschema;
	pq_schema_el *schema;
	int64_t num_rows;
	int nrow_groups;
	pq_row_group *row_groups;
	int nkv;
	pq_kv *kv;
	pq_bytes created_by;
	int ncolumn_orders; /* written as TYPE_ORDER for every leaf */
} pq_meta;

typedef struct pq_page_header {
	int type;
	int32_t uncompressed_size;
	int32_t compressed_size;
	/* DATA_PAGE, DATA_PAGE_V2, DICTIONARY_PAGE */
	int32_t num_values;
	int encoding;
	int def_encoding, rep_encoding; /* V1 */
	int32_t num_nulls, num_rows;    /* V2 */
	int32_t def_len, rep_len;       /* V2 */
	bool is_compressed;             /* V2, default true */
	bool has_data, has_dict, has_v2;
	pq_stats stats; /* the writer's page statistics (null_count) */
	bool has_stats;
} pq_page_header;

/* ---- parquet_thrift.c: the thrift compact protocol ---- */

/* Decode a FileMetaData from p[0..n) into *m (zeroed first).  Every list
 * count and length is checked against the bytes left; structs nest at most
 * PQ_THRIFT_DEPTH deep.  On failure returns SL_EDATA with err's message
 * saying what is wrong ("footer: list of 4000000000 row groups is longer
 * than the footer"), without the file name (the caller prefixes it).
 * *m borrows p for its byte strings; free with pq_meta_release. */
#define PQ_THRIFT_DEPTH 32
int pq_meta_decode(const uint8_t *p, size_t n, pq_meta *m, sl_err *err);
void pq_meta_release(pq_meta *m);
/* Decode a PageHeader at p[0..n); *used gets its size in bytes. */
int pq_page_header_decode(const uint8_t *p, size_t n, pq_page_header *h,
			  size_t *used, sl_err *err);

/* Encoders append to out (out of memory is sticky in the buffer). */
void pq_meta_encode(const pq_meta *m, sl_buf *out);
void pq_page_header_encode(const pq_page_header *h, sl_buf *out);

/* ---- parquet_codec.c: page compression ---- */

/* Codec named by the "compression" option value (snappy, zstd, gzip,
 * none, uncompressed; case-insensitive) or -1. */
int pq_codec_parse(const char *name);
const char *pq_codec_name(int codec);
/* Compress p[0..n) with codec, appending to out.  0 or SL_ENOMEM/SL_EINVAL. */
int pq_compress(int codec, const void *p, size_t n, sl_buf *out, sl_err *err);
/* Decompress exactly want bytes into dst from src[0..n): SL_EDATA when the
 * data is corrupt or its size is not want; SL_EINVAL for a codec this
 * build cannot read ("unsupported compression codec 'LZO'"). */
int pq_decompress(int codec, const void *src, size_t n, void *dst, size_t want,
		  sl_err *err);

/* ---- RLE / bit-packed hybrid (parquet_write.c encodes, parquet_read.c
 * decodes) ---- */

/* parquet_decode.c: a hybrid decoder over p[0..n) with bit width bw
 * (0..32).  pq_rle_get gives the next n values; false when the data runs
 * out or is bad (a run value wider than bw, a zero-length run). */
typedef struct pq_rle {
	const uint8_t *p, *end;
	int bw;
	bool packed;
	const uint8_t *pk, *pkend;
	int64_t pos, left;
	uint32_t val;
} pq_rle;
void pq_rle_init(pq_rle *r, const uint8_t *p, size_t n, int bw);
bool pq_rle_get(pq_rle *r, uint32_t *out, int64_t n);
/* A ULEB128 varint at r's position (also used by pq_dbp_decode). */
bool pq_rle_varint(pq_rle *r, uint64_t *v);
/* DELTA_BINARY_PACKED: exactly want values (the header's count must say
 * so) from p[0..n) into out; *used gets the bytes taken.  is32: the
 * arithmetic wraps at 32 bits (INT32 columns, lengths). */
bool pq_dbp_decode(const uint8_t *p, size_t n, int64_t want, int64_t *out,
		   size_t *used, bool is32);

/* Bits needed for values up to max (0 for max 0). */
int pq_bit_width(uint64_t max);
/* Append the hybrid encoding of v[0..n) with bit width bw to out. */
void pq_rle_encode(const uint32_t *v, int64_t n, int bw, sl_buf *out);

static inline void pq_put_u32le(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}
static inline uint32_t pq_get_u32le(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

#endif
