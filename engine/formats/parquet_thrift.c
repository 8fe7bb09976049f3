/*
 * parquet_thrift: the Thrift compact protocol, as much of it as a Parquet
 * footer and page headers use, with the field ids of parquet-format's
 * parquet.thrift (FileMetaData, SchemaElement, LogicalType, RowGroup,
 * ColumnChunk, ColumnMetaData, Statistics, KeyValue, ColumnOrder,
 * PageHeader, DataPageHeader, DataPageHeaderV2, DictionaryPageHeader).
 *
 * The compact protocol in one paragraph: a struct is a sequence of fields,
 * each a header byte (high nibble: the field id's delta from the previous
 * field, or 0 and then the id as a zigzag varint; low nibble: the type)
 * and its value; a 0 byte ends the struct.  Integers are zigzag varints,
 * strings a varint length and the bytes, lists a byte (size in the high
 * nibble, 15 meaning a varint size follows; element type in the low one)
 * and the elements.  Booleans live in the field header's type nibble.
 *
 * The decoder trusts nothing: every length and list count is checked
 * against the bytes that remain (each element takes at least one byte),
 * varints are at most 10 bytes, structs nest at most PQ_THRIFT_DEPTH deep,
 * and unknown fields are skipped with the same checks.  The first problem
 * found becomes the error; decoding stops there.
 */
#include "formats/parquet_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
	CT_STOP = 0,
	CT_TRUE = 1,
	CT_FALSE = 2,
	CT_BYTE = 3,
	CT_I16 = 4,
	CT_I32 = 5,
	CT_I64 = 6,
	CT_DOUBLE = 7,
	CT_BINARY = 8,
	CT_LIST = 9,
	CT_SET = 10,
	CT_MAP = 11,
	CT_STRUCT = 12
};

/* ---- decoding ---- */

typedef struct tc {
	const uint8_t *p, *end;
	int depth;
	bool bad;
	sl_err *err;
} tc;

static bool tc_fail(tc *t, const char *msg)
{
	if (!t->bad)
		sl_err_set(t->err, SL_EDATA, "%s", msg);
	t->bad = true;
	t->p = t->end;
	return false;
}

static uint64_t tc_varint(tc *t)
{
	uint64_t v = 0;
	int shift;
	for (shift = 0; shift < 70; shift += 7) {
		uint8_t b;
		if (t->p >= t->end) {
			tc_fail(t, "thrift data ends inside a number");
			return 0;
		}
		b = *t->p++;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	tc_fail(t, "thrift varint longer than 10 bytes");
	return 0;
}

static int64_t tc_zigzag(tc *t)
{
	uint64_t v = tc_varint(t);
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static int32_t tc_i32(tc *t, int ctype)
{
	int64_t v;
	if (ctype == CT_BYTE) {
		if (t->p >= t->end)
			return tc_fail(t, "thrift data ends inside a byte"), 0;
		return (int8_t)*t->p++;
	}
	if (ctype != CT_I32 && ctype != CT_I16) {
		tc_fail(t, "thrift field has the wrong type (want i32)");
		return 0;
	}
	v = tc_zigzag(t);
	if (v < INT32_MIN || v > INT32_MAX)
		tc_fail(t, "thrift i32 out of range");
	return (int32_t)v;
}

static int64_t tc_i64(tc *t, int ctype)
{
	if (ctype != CT_I64 && ctype != CT_I32 && ctype != CT_I16) {
		tc_fail(t, "thrift field has the wrong type (want i64)");
		return 0;
	}
	return tc_zigzag(t);
}

static bool tc_bool(tc *t, int ctype)
{
	if (ctype == CT_TRUE)
		return true;
	if (ctype == CT_FALSE)
		return false;
	tc_fail(t, "thrift field has the wrong type (want bool)");
	return false;
}

static pq_bytes tc_bin(tc *t, int ctype)
{
	pq_bytes b = { NULL, 0, false };
	uint64_t n;
	if (ctype != CT_BINARY) {
		tc_fail(t, "thrift field has the wrong type (want binary)");
		return b;
	}
	n = tc_varint(t);
	if (t->bad)
		return b;
	if (n > (uint64_t)(t->end - t->p)) {
		tc_fail(t, "thrift string is longer than the data left");
		return b;
	}
	b.p = t->p;
	b.len = (uint32_t)n;
	b.set = true;
	t->p += n;
	return b;
}

/* List header: element type and count, checked against the bytes left. */
static int64_t tc_list(tc *t, int ctype, int *etype, const char *what)
{
	uint8_t h;
	uint64_t n;
	if (ctype != CT_LIST && ctype != CT_SET) {
		char m[120];
		snprintf(m, sizeof m, "thrift field %s is not a list", what);
		tc_fail(t, m);
		return 0;
	}
	if (t->p >= t->end) {
		tc_fail(t, "thrift data ends inside a list header");
		return 0;
	}
	h = *t->p++;
	*etype = h & 0x0f;
	n = h >> 4;
	if (n == 15)
		n = tc_varint(t);
	if (t->bad)
		return 0;
	if (n > (uint64_t)(t->end - t->p)) {
		char m[120];
		snprintf(m, sizeof m, "list of %llu %s is longer than the data",
			 (unsigned long long)n, what);
		tc_fail(t, m);
		return 0;
	}
	return (int64_t)n;
}

static void tc_skip(tc *t, int ctype);

/* Next field header of the current struct: false at the struct's end. */
static bool tc_field(tc *t, int16_t *last, int16_t *id, int *ctype)
{
	uint8_t h;
	if (t->bad || t->p >= t->end) {
		if (!t->bad)
			tc_fail(t, "thrift data ends inside a struct");
		return false;
	}
	h = *t->p++;
	if (h == CT_STOP)
		return false;
	*ctype = h & 0x0f;
	if (h >> 4)
		*id = (int16_t)(*last + (h >> 4));
	else
		*id = (int16_t)tc_zigzag(t);
	*last = *id;
	return !t->bad;
}

static bool tc_enter(tc *t, int ctype)
{
	if (ctype != CT_STRUCT)
		return tc_fail(t,
			       "thrift field has the wrong type (want struct)");
	if (++t->depth > PQ_THRIFT_DEPTH)
		return tc_fail(t, "thrift structs nest too deep");
	return true;
}

static void tc_leave(tc *t)
{
	t->depth--;
}

static void tc_skip_struct(tc *t)
{
	int16_t last = 0, id;
	int ct;
	if (!tc_enter(t, CT_STRUCT))
		return;
	while (tc_field(t, &last, &id, &ct))
		tc_skip(t, ct);
	tc_leave(t);
}

static void tc_skip(tc *t, int ctype)
{
	int64_t n, i;
	int et;
	switch (ctype) {
	case CT_TRUE:
	case CT_FALSE: return;
	case CT_BYTE:
		if (t->p >= t->end)
			tc_fail(t, "thrift data ends inside a byte");
		else
			t->p++;
		return;
	case CT_I16:
	case CT_I32:
	case CT_I64: tc_varint(t); return;
	case CT_DOUBLE:
		if (t->end - t->p < 8)
			tc_fail(t, "thrift data ends inside a double");
		else
			t->p += 8;
		return;
	case CT_BINARY: tc_bin(t, ctype); return;
	case CT_LIST:
	case CT_SET:
		n = tc_list(t, ctype, &et, "elements");
		if (++t->depth > PQ_THRIFT_DEPTH) {
			tc_fail(t, "thrift structs nest too deep");
			return;
		}
		for (i = 0; i < n && !t->bad; i++) {
			if (et == CT_TRUE || et == CT_FALSE)
				tc_skip(t, CT_BYTE);
			else
				tc_skip(t, et);
		}
		t->depth--;
		return;
	case CT_MAP: {
		uint64_t m = tc_varint(t);
		uint8_t kv;
		if (m == 0 || t->bad)
			return;
		if (m > (uint64_t)(t->end - t->p) || t->p >= t->end) {
			tc_fail(t, "thrift map is longer than the data");
			return;
		}
		kv = *t->p++;
		if (++t->depth > PQ_THRIFT_DEPTH) {
			tc_fail(t, "thrift structs nest too deep");
			return;
		}
		for (i = 0; i < (int64_t)m && !t->bad; i++) {
			tc_skip(t, kv >> 4);
			tc_skip(t, kv & 0x0f);
		}
		t->depth--;
		return;
	}
	case CT_STRUCT: tc_skip_struct(t); return;
	default: tc_fail(t, "thrift field of unknown type");
	}
}

/* ---- the Parquet structs ---- */

static void dec_stats(tc *t, int ct, pq_stats *s)
{
	int16_t last = 0, id;
	int c;
	pq_bytes oldmin = { 0 }, oldmax = { 0 };
	s->null_count = -1;
	if (!tc_enter(t, ct))
		return;
	while (tc_field(t, &last, &id, &c)) {
		switch (id) {
		case 1: oldmax = tc_bin(t, c); break;
		case 2: oldmin = tc_bin(t, c); break;
		case 3: s->null_count = tc_i64(t, c); break;
		case 5: s->max_value = tc_bin(t, c); break;
		case 6: s->min_value = tc_bin(t, c); break;
		default: tc_skip(t, c);
		}
	}
	(void)oldmin;
	(void)oldmax;
	tc_leave(t);
}

static void dec_unit(tc *t, int ct, int *unit)
{
	int16_t last = 0, id;
	int c;
	if (!tc_enter(t, ct))
		return;
	while (tc_field(t, &last, &id, &c)) {
		if (id >= 1 && id <= 3 && c == CT_STRUCT)
			*unit = id;
		tc_skip(t, c);
	}
	tc_leave(t);
}

static void dec_logical_member(tc *t, int ct, int which, pq_schema_el *e)
{
	int16_t last = 0, id;
	int c;
	if (!tc_enter(t, ct))
		return;
	while (tc_field(t, &last, &id, &c)) {
		if (which == PQ_LT_DECIMAL && id == 1)
			e->lt_scale = tc_i32(t, c);
		else if (which == PQ_LT_DECIMAL && id == 2)
			e->lt_precision = tc_i32(t, c);
		else if ((which == PQ_LT_TIME || which == PQ_LT_TIMESTAMP) &&
			 id == 1)
			e->lt_utc = tc_bool(t, c);
		else if ((which == PQ_LT_TIME || which == PQ_LT_TIMESTAMP) &&
			 id == 2)
			dec_unit(t, c, &e->lt_unit);
		else if (which == PQ_LT_INTEGER && id == 1)
			e->lt_bits = tc_i32(t, c);
		else if (which == PQ_LT_INTEGER && id == 2)
			e->lt_signed = tc_bool(t, c);
		else
			tc_skip(t, c);
	}
	tc_leave(t);
}

static void dec_logical(tc *t, int ct, pq_schema_el *e)
{
	int16_t last = 0, id;
	int c;
	if (!tc_enter(t, ct))
		return;
	while (tc_field(t, &last, &id, &c)) {
		if (c == CT_STRUCT && id >= 1 && id <= 14) {
			e->logical = id;
			dec_logical_member(t, c, id, e);
		} else {
			tc_skip(t, c);
		}
	}
	tc_leave(t);
}

static void dec_schema_el(tc *t, int ct, pq_schema_el *e)
{
	int16_t last = 0, id;
	int c;
	e->type = -1;
	e->rep = -1;
	e->num_children = -1;
	e->converted = PQ_CT_NONE;
	if (!tc_enter(t, ct))
		return;
	while (tc_field(t, &last, &id, &c)) {
		switch (id) {
		case 1: e->type = tc_i32(t, c); break;
		case 2: e->type_length = tc_i32(t, c); break;
		case 3: e->rep = tc_i32(t, c); break;
		case 4: e->name = tc_bin(t, c); break;
		case 5: e->num_children = tc_i32(t, c); break;
		case 6: e->converted = tc_i32(t, c); break;
		case 7: e->scale = tc_i32(t, c); break;
		case 8: e->precision = tc_i32(t, c); break;
		case 10: dec_logical(t, c, e); break;
		default: tc_skip(t, c);
		}
	}
	tc_leave(t);
	if (!t->bad && !e->name.set)
		tc_fail(t, "schema element without a name");
}

static void dec_col_meta(tc *t, int ct, pq_column_meta *m)
{
	int16_t last = 0, id;
	int c, et;
	int64_t n, i;
	m->dictionary_page_offset = -1;
	m->stats.null_count = -1;
	if (!tc_enter(t, ct))
		return;
	while (tc_field(t, &last, &id, &c)) {
		switch (id) {
		case 1: m->type = tc_i32(t, c); break;
		case 2:
			n = tc_list(t, c, &et, "encodings");
			for (i = 0; i < n && !t->bad; i++) {
				int32_t v = tc_i32(t, et);
				if (m->nencodings < 16)
					m->encodings[m->nencodings++] = v;
			}
			break;
		case 3:
			n = tc_list(t, c, &et, "path elements");
			for (i = 0; i < n && !t->bad; i++) {
				pq_bytes b = tc_bin(t, et);
				if (m->npath < 8)
					m->path[m->npath] = b;
				m->npath++;
			}
			break;
		case 4: m->codec = tc_i32(t, c); break;
		case 5: m->num_values = tc_i64(t, c); break;
		case 6: m->total_uncompressed_size = tc_i64(t, c); break;
		case 7: m->total_compressed_size = tc_i64(t, c); break;
		case 9: m->data_page_offset = tc_i64(t, c); break;
		case 11: m->dictionary_page_offset = tc_i64(t, c); break;
		case 12:
			dec_stats(t, c, &m->stats);
			m->has_stats = true;
			break;
		default: tc_skip(t, c);
		}
	}
	tc_leave(t);
}

static void dec_chunk(tc *t, int ct, pq_column_chunk *cc)
{
	int16_t last = 0, id;
	int c;
	if (!tc_enter(t, ct))
		return;
	while (tc_field(t, &last, &id, &c)) {
		if (id == 2) {
			cc->file_offset = tc_i64(t, c);
		} else if (id == 3) {
			dec_col_meta(t, c, &cc->meta);
			cc->has_meta = true;
		} else {
			tc_skip(t, c);
		}
	}
	tc_leave(t);
}

static void dec_row_group(tc *t, int ct, pq_row_group *rg)
{
	int16_t last = 0, id;
	int c, et;
	int64_t n, i;
	if (!tc_enter(t, ct))
		return;
	while (tc_field(t, &last, &id, &c)) {
		switch (id) {
		case 1:
			n = tc_list(t, c, &et, "column chunks");
			if (t->bad || rg->columns != NULL)
				break;
			rg->columns =
			    calloc((size_t)n + 1, sizeof *rg->columns);
			if (rg->columns == NULL) {
				tc_fail(t, "out of memory");
				break;
			}
			for (i = 0; i < n && !t->bad; i++) {
				dec_chunk(t, et, &rg->columns[i]);
				rg->ncolumns++;
			}
			break;
		case 2: rg->total_byte_size = tc_i64(t, c); break;
		case 3: rg->num_rows = tc_i64(t, c); break;
		case 5: rg->file_offset = tc_i64(t, c); break;
		case 6: rg->total_compressed_size = tc_i64(t, c); break;
		default: tc_skip(t, c);
		}
	}
	tc_leave(t);
}

static void dec_kv(tc *t, int ct, pq_kv *kv)
{
	int16_t last = 0, id;
	int c;
	if (!tc_enter(t, ct))
		return;
	while (tc_field(t, &last, &id, &c)) {
		if (id == 1)
			kv->key = tc_bin(t, c);
		else if (id == 2)
			kv->value = tc_bin(t, c);
		else
			tc_skip(t, c);
	}
	tc_leave(t);
}

int pq_meta_decode(const uint8_t *p, size_t n, pq_meta *m, sl_err *err)
{
	tc t = { p, p + n, 0, false, err };
	int16_t last = 0, id;
	int c, et;
	int64_t k, i;
	memset(m, 0, sizeof *m);
	if (!tc_enter(&t, CT_STRUCT))
		return SL_EDATA;
	while (tc_field(&t, &last, &id, &c)) {
		switch (id) {
		case 1: m->version = tc_i32(&t, c); break;
		case 2:
			k = tc_list(&t, c, &et, "schema elements");
			if (t.bad || m->schema != NULL)
				break;
			m->schema = calloc((size_t)k + 1, sizeof *m->schema);
			if (m->schema == NULL) {
				tc_fail(&t, "out of memory");
				break;
			}
			for (i = 0; i < k && !t.bad; i++) {
				dec_schema_el(&t, et, &m->schema[i]);
				m->nschema++;
			}
			break;
		case 3: m->num_rows = tc_i64(&t, c); break;
		case 4:
			k = tc_list(&t, c, &et, "row groups");
			if (t.bad || m->row_groups != NULL)
				break;
			m->row_groups =
			    calloc((size_t)k + 1, sizeof *m->row_groups);
			if (m->row_groups == NULL) {
				tc_fail(&t, "out of memory");
				break;
			}
			for (i = 0; i < k && !t.bad; i++) {
				m->nrow_groups++;
				dec_row_group(&t, et, &m->row_groups[i]);
			}
			break;
		case 5:
			k = tc_list(&t, c, &et, "key-value pairs");
			if (t.bad || m->kv != NULL)
				break;
			m->kv = calloc((size_t)k + 1, sizeof *m->kv);
			if (m->kv == NULL) {
				tc_fail(&t, "out of memory");
				break;
			}
			for (i = 0; i < k && !t.bad; i++) {
				dec_kv(&t, et, &m->kv[i]);
				m->nkv++;
			}
			break;
		case 6: m->created_by = tc_bin(&t, c); break;
		default: tc_skip(&t, c);
		}
	}
	if (t.bad) {
		pq_meta_release(m);
		return SL_EDATA;
	}
	if (m->nschema == 0) {
		pq_meta_release(m);
		return sl_err_set(err, SL_EDATA, "footer has no schema");
	}
	return 0;
}

void pq_meta_release(pq_meta *m)
{
	int i;
	for (i = 0; i < m->nrow_groups; i++)
		free(m->row_groups[i].columns);
	free(m->row_groups);
	free(m->schema);
	free(m->kv);
	memset(m, 0, sizeof *m);
}

static void dec_data_page(tc *t, int ct, pq_page_header *h, bool v2)
{
	int16_t last = 0, id;
	int c;
	h->is_compressed = true;
	if (!tc_enter(t, ct))
		return;
	while (tc_field(t, &last, &id, &c)) {
		if (id == 1) {
			h->num_values = tc_i32(t, c);
		} else if (!v2 && id == 2) {
			h->encoding = tc_i32(t, c);
		} else if (!v2 && id == 3) {
			h->def_encoding = tc_i32(t, c);
		} else if (!v2 && id == 4) {
			h->rep_encoding = tc_i32(t, c);
		} else if (!v2 && id == 5) {
			dec_stats(t, c, &h->stats);
			h->has_stats = true;
		} else if (v2 && id == 2) {
			h->num_nulls = tc_i32(t, c);
		} else if (v2 && id == 3) {
			h->num_rows = tc_i32(t, c);
		} else if (v2 && id == 4) {
			h->encoding = tc_i32(t, c);
		} else if (v2 && id == 5) {
			h->def_len = tc_i32(t, c);
		} else if (v2 && id == 6) {
			h->rep_len = tc_i32(t, c);
		} else if (v2 && id == 7) {
			h->is_compressed = tc_bool(t, c);
		} else {
			tc_skip(t, c);
		}
	}
	tc_leave(t);
}

static void dec_dict_page(tc *t, int ct, pq_page_header *h)
{
	int16_t last = 0, id;
	int c;
	if (!tc_enter(t, ct))
		return;
	while (tc_field(t, &last, &id, &c)) {
		if (id == 1)
			h->num_values = tc_i32(t, c);
		else if (id == 2)
			h->encoding = tc_i32(t, c);
		else
			tc_skip(t, c);
	}
	tc_leave(t);
}

int pq_page_header_decode(const uint8_t *p, size_t n, pq_page_header *h,
			  size_t *used, sl_err *err)
{
	tc t = { p, p + n, 0, false, err };
	int16_t last = 0, id;
	int c;
	memset(h, 0, sizeof *h);
	h->type = -1;
	h->stats.null_count = -1;
	if (!tc_enter(&t, CT_STRUCT))
		return SL_EDATA;
	while (tc_field(&t, &last, &id, &c)) {
		switch (id) {
		case 1: h->type = tc_i32(&t, c); break;
		case 2: h->uncompressed_size = tc_i32(&t, c); break;
		case 3: h->compressed_size = tc_i32(&t, c); break;
		case 5:
			dec_data_page(&t, c, h, false);
			h->has_data = true;
			break;
		case 7:
			dec_dict_page(&t, c, h);
			h->has_dict = true;
			break;
		case 8:
			dec_data_page(&t, c, h, true);
			h->has_v2 = true;
			break;
		default: tc_skip(&t, c);
		}
	}
	if (t.bad)
		return SL_EDATA;
	if (h->uncompressed_size < 0 || h->compressed_size < 0 ||
	    h->num_values < 0)
		return sl_err_set(err, SL_EDATA,
				  "page header with a negative size");
	*used = (size_t)(t.p - p);
	return 0;
}

/* ---- encoding ---- */

typedef struct tw {
	sl_buf *out;
	int16_t last[PQ_THRIFT_DEPTH];
	int depth;
} tw;

static void tw_varint(tw *w, uint64_t v)
{
	uint8_t b[10];
	int n = 0;
	do {
		b[n] = (uint8_t)(v & 0x7f);
		v >>= 7;
		if (v)
			b[n] |= 0x80;
		n++;
	} while (v);
	sl_buf_add(w->out, b, (size_t)n);
}

static void tw_zigzag(tw *w, int64_t v)
{
	tw_varint(w, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

static void tw_field(tw *w, int16_t id, int ctype)
{
	int16_t d = (int16_t)(id - w->last[w->depth]);
	if (d > 0 && d <= 15) {
		sl_buf_addc(w->out, (char)(uint8_t)(d << 4 | ctype));
	} else {
		sl_buf_addc(w->out, (char)ctype);
		tw_zigzag(w, id);
	}
	w->last[w->depth] = id;
}

static void tw_i32(tw *w, int16_t id, int64_t v)
{
	tw_field(w, id, CT_I32);
	tw_zigzag(w, v);
}

static void tw_i64(tw *w, int16_t id, int64_t v)
{
	tw_field(w, id, CT_I64);
	tw_zigzag(w, v);
}

static void tw_bool(tw *w, int16_t id, bool v)
{
	tw_field(w, id, v ? CT_TRUE : CT_FALSE);
}

static void tw_raw_bin(tw *w, const void *p, size_t n)
{
	tw_varint(w, n);
	sl_buf_add(w->out, p, n);
}

static void tw_bin(tw *w, int16_t id, const void *p, size_t n)
{
	tw_field(w, id, CT_BINARY);
	tw_raw_bin(w, p, n);
}

static void tw_list(tw *w, int16_t id, int etype, int64_t n)
{
	if (id > 0)
		tw_field(w, id, CT_LIST);
	if (n < 15) {
		sl_buf_addc(w->out, (char)(uint8_t)(n << 4 | etype));
	} else {
		sl_buf_addc(w->out, (char)(uint8_t)(0xf0 | etype));
		tw_varint(w, (uint64_t)n);
	}
}

/* Open a struct: as field id of the enclosing one, or a list element
 * (id 0). */
static void tw_begin(tw *w, int16_t id)
{
	if (id > 0)
		tw_field(w, id, CT_STRUCT);
	w->last[++w->depth] = 0;
}

static void tw_end(tw *w)
{
	sl_buf_addc(w->out, CT_STOP);
	w->depth--;
}

static void enc_stats(tw *w, int16_t id, const pq_stats *s)
{
	tw_begin(w, id);
	if (s->null_count >= 0)
		tw_i64(w, 3, s->null_count);
	if (s->max_value.set)
		tw_bin(w, 5, s->max_value.p, s->max_value.len);
	if (s->min_value.set)
		tw_bin(w, 6, s->min_value.p, s->min_value.len);
	tw_end(w);
}

static void enc_logical(tw *w, const pq_schema_el *e)
{
	tw_begin(w, 10);
	tw_begin(w, (int16_t)e->logical);
	if (e->logical == PQ_LT_TIMESTAMP || e->logical == PQ_LT_TIME) {
		tw_bool(w, 1, e->lt_utc);
		tw_begin(w, 2);
		tw_begin(w, (int16_t)e->lt_unit);
		tw_end(w);
		tw_end(w);
	} else if (e->logical == PQ_LT_INTEGER) {
		tw_field(w, 1, CT_BYTE);
		sl_buf_addc(w->out, (char)e->lt_bits);
		tw_bool(w, 2, e->lt_signed);
	} else if (e->logical == PQ_LT_DECIMAL) {
		tw_i32(w, 1, e->lt_scale);
		tw_i32(w, 2, e->lt_precision);
	}
	tw_end(w);
	tw_end(w);
}

static void enc_schema_el(tw *w, const pq_schema_el *e)
{
	tw_begin(w, 0);
	if (e->type >= 0)
		tw_i32(w, 1, e->type);
	if (e->type == PQ_FLBA)
		tw_i32(w, 2, e->type_length);
	if (e->rep >= 0)
		tw_i32(w, 3, e->rep);
	tw_bin(w, 4, e->name.p, e->name.len);
	if (e->num_children >= 0)
		tw_i32(w, 5, e->num_children);
	if (e->converted != PQ_CT_NONE)
		tw_i32(w, 6, e->converted);
	if (e->converted == PQ_CT_DECIMAL) {
		tw_i32(w, 7, e->scale);
		tw_i32(w, 8, e->precision);
	}
	if (e->logical != PQ_LT_NONE)
		enc_logical(w, e);
	tw_end(w);
}

static void enc_col_meta(tw *w, const pq_column_meta *m)
{
	int i;
	tw_begin(w, 3);
	tw_i32(w, 1, m->type);
	tw_list(w, 2, CT_I32, m->nencodings);
	for (i = 0; i < m->nencodings; i++)
		tw_zigzag(w, m->encodings[i]);
	tw_list(w, 3, CT_BINARY, m->npath);
	for (i = 0; i < m->npath; i++)
		tw_raw_bin(w, m->path[i].p, m->path[i].len);
	tw_i32(w, 4, m->codec);
	tw_i64(w, 5, m->num_values);
	tw_i64(w, 6, m->total_uncompressed_size);
	tw_i64(w, 7, m->total_compressed_size);
	tw_i64(w, 9, m->data_page_offset);
	if (m->dictionary_page_offset >= 0)
		tw_i64(w, 11, m->dictionary_page_offset);
	if (m->has_stats)
		enc_stats(w, 12, &m->stats);
	tw_end(w);
}

void pq_meta_encode(const pq_meta *m, sl_buf *out)
{
	tw w = { out, { 0 }, 0 };
	int i, j;
	tw_begin(&w, 0);
	tw_i32(&w, 1, m->version);
	tw_list(&w, 2, CT_STRUCT, m->nschema);
	for (i = 0; i < m->nschema; i++)
		enc_schema_el(&w, &m->schema[i]);
	tw_i64(&w, 3, m->num_rows);
	tw_list(&w, 4, CT_STRUCT, m->nrow_groups);
	for (i = 0; i < m->nrow_groups; i++) {
		const pq_row_group *rg = &m->row_groups[i];
		tw_begin(&w, 0);
		tw_list(&w, 1, CT_STRUCT, rg->ncolumns);
		for (j = 0; j < rg->ncolumns; j++) {
			tw_begin(&w, 0);
			tw_i64(&w, 2, rg->columns[j].file_offset);
			enc_col_meta(&w, &rg->columns[j].meta);
			tw_end(&w);
		}
		tw_i64(&w, 2, rg->total_byte_size);
		tw_i64(&w, 3, rg->num_rows);
		tw_i64(&w, 5, rg->file_offset);
		tw_i64(&w, 6, rg->total_compressed_size);
		tw_field(&w, 7, CT_I16);
		tw_zigzag(&w, i);
		tw_end(&w);
	}
	if (m->nkv > 0) {
		tw_list(&w, 5, CT_STRUCT, m->nkv);
		for (i = 0; i < m->nkv; i++) {
			tw_begin(&w, 0);
			tw_bin(&w, 1, m->kv[i].key.p, m->kv[i].key.len);
			if (m->kv[i].value.set)
				tw_bin(&w, 2, m->kv[i].value.p,
				       m->kv[i].value.len);
			tw_end(&w);
		}
	}
	if (m->created_by.set)
		tw_bin(&w, 6, m->created_by.p, m->created_by.len);
	if (m->ncolumn_orders > 0) {
		/* ColumnOrder union, member 1: TypeDefinedOrder (empty) */
		tw_list(&w, 7, CT_STRUCT, m->ncolumn_orders);
		for (i = 0; i < m->ncolumn_orders; i++) {
			tw_begin(&w, 0);
			tw_begin(&w, 1);
			tw_end(&w);
			tw_end(&w);
		}
	}
	tw_end(&w);
}

void pq_page_header_encode(const pq_page_header *h, sl_buf *out)
{
	tw w = { out, { 0 }, 0 };
	tw_begin(&w, 0);
	tw_i32(&w, 1, h->type);
	tw_i32(&w, 2, h->uncompressed_size);
	tw_i32(&w, 3, h->compressed_size);
	if (h->type == PQ_DATA_PAGE) {
		tw_begin(&w, 5);
		tw_i32(&w, 1, h->num_values);
		tw_i32(&w, 2, h->encoding);
		tw_i32(&w, 3, h->def_encoding);
		tw_i32(&w, 4, h->rep_encoding);
		if (h->has_stats)
			enc_stats(&w, 5, &h->stats);
		tw_end(&w);
	} else if (h->type == PQ_DICTIONARY_PAGE) {
		tw_begin(&w, 7);
		tw_i32(&w, 1, h->num_values);
		tw_i32(&w, 2, h->encoding);
		tw_end(&w);
	}
	tw_end(&w);
}
