/*
 * parquet_read: Parquet files -> batches, one row group at a time, only
 * the columns asked for.
 *
 * sl_parquet_open reads only the footer; a read then reads (pread) only
 * the column chunks it decodes, so a projection costs a fraction of the
 * file.  Opening checks the magic at both ends, that the footer length
 * fits in the file, decodes the footer (parquet_thrift.c checks every count) and
 * builds the schema tree from the flattened SchemaElement list (children
 * counts checked against the elements left, nesting bounded).  Leaves are
 * numbered in that order; leaf i of the tree is column chunk i of every
 * row group.
 *
 * Reading one leaf of one row group walks its column chunk page by page:
 * a dictionary page (PLAIN values), then data pages V1 (definition levels
 * with a 4-byte length, then values, all compressed together) or V2
 * (levels uncompressed in front, then the values, compressed when
 * is_compressed).  Values are PLAIN or dictionary ids (RLE_DICTIONARY,
 * PLAIN_DICTIONARY: a bit width byte, then the RLE/bit-packed hybrid),
 * booleans PLAIN or RLE; they are decoded to their physical type, then
 * converted (timestamps to microseconds, decimals to doubles, ...) into
 * the rows whose definition level is the leaf's maximum.  A struct row is
 * null when its first leaf's level stops short of the struct's own level.
 *
 * Strings point into the column's own arena: a PLAIN page of strings is
 * decompressed straight into it, a dictionary page too, so a string value
 * is never copied twice and nothing points into the file's bytes.
 */
#include "formats/parquet.h"
#include "formats/parquet_int.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/fsutil.h"
#include "core/timeutil.h"

#define MAX_NEST 32
#define MAX_ROWS INT64_C(2147483647)

enum conv {
	CV_NONE,
	CV_BOOL,
	CV_I32,
	CV_U32,
	CV_I64,
	CV_TS_MILLIS,
	CV_TS_MICROS,
	CV_TS_NANOS,
	CV_INT96,
	CV_FLOAT,
	CV_DOUBLE,
	CV_DEC32,
	CV_DEC64,
	CV_DECBYTES,
	CV_BYTES
};

typedef struct rnode {
	const pq_schema_el *el;
	char *name;
	int first, nchild; /* children: nodes first..first+nchild-1 (ids) */
	int *child;
	int def, rep;
	int leaf;      /* leaf index, -1 for a group */
	sl_type *type; /* NULL when unsupported */
	const char *why;
	int conv;
	double scale; /* 10^scale for decimals */
} rnode;

struct sl_parquet_file {
	char *name;
	int fd;              /* sl_parquet_open: -1 for bytes in memory */
	uint8_t *own;        /* the footer's bytes, read from fd */
	const uint8_t *data; /* sl_parquet_open_buf: the whole file */
	size_t len;
	pq_meta m;
	rnode *nodes;
	int nnodes;
	int *leaf_node;
	int nleaves;
	sl_type *schema;
	int *top; /* node of each root child, in file order */
	int ntop;
};

static int ferr(const sl_parquet_file *f, sl_err *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int ferr(const sl_parquet_file *f, sl_err *err, const char *fmt, ...)
{
	char m[SL_ERR_MSG];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m, sizeof m, fmt, ap);
	va_end(ap);
	return sl_err_set(err, SL_EDATA, "parquet: '%s': %s", f->name, m);
}

/* ---- schema ---- */

static const char *ptype_name(int t)
{
	static const char *const n[] = { "BOOLEAN",    "INT32",
					 "INT64",      "INT96",
					 "FLOAT",      "DOUBLE",
					 "BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY" };
	return t >= 0 && t <= 7 ? n[t] : "UNKNOWN";
}

static const char *enc_name(int e)
{
	static const char *const n[] = { "PLAIN",
					 "GROUP_VAR_INT",
					 "PLAIN_DICTIONARY",
					 "RLE",
					 "BIT_PACKED",
					 "DELTA_BINARY_PACKED",
					 "DELTA_LENGTH_BYTE_ARRAY",
					 "DELTA_BYTE_ARRAY",
					 "RLE_DICTIONARY",
					 "BYTE_STREAM_SPLIT" };
	return e >= 0 && e <= 9 ? n[e] : "UNKNOWN";
}

/* Engine type and conversion of a leaf; NULL with *why when not read. */
static sl_type *leaf_type(rnode *n, const char **why)
{
	const pq_schema_el *e = n->el;
	int lt = e->logical, ct = e->converted;
	int scale = lt == PQ_LT_DECIMAL ? e->lt_scale : e->scale;
	bool dec = lt == PQ_LT_DECIMAL || ct == PQ_CT_DECIMAL;
	n->scale = pow(10.0, scale);
	switch (e->type) {
	case PQ_BOOLEAN: n->conv = CV_BOOL; return sl_type_prim(SL_BOOLEAN);
	case PQ_INT32:
		if (lt == PQ_LT_DATE || ct == PQ_CT_DATE) {
			n->conv = CV_I32; /* days, as the DATE column holds */
			return sl_type_prim(SL_DATE);
		}
		if (dec) {
			n->conv = CV_DEC32;
			return sl_type_prim(SL_DOUBLE);
		}
		if ((lt == PQ_LT_INTEGER && !e->lt_signed &&
		     e->lt_bits == 32) ||
		    ct == PQ_CT_UINT_32) {
			n->conv = CV_U32;
			return sl_type_prim(SL_BIGINT);
		}
		n->conv = CV_I32;
		return sl_type_prim(SL_INT);
	case PQ_INT64:
		if (lt == PQ_LT_TIMESTAMP || ct == PQ_CT_TIMESTAMP_MILLIS ||
		    ct == PQ_CT_TIMESTAMP_MICROS) {
			int u = lt == PQ_LT_TIMESTAMP          ? e->lt_unit
				: ct == PQ_CT_TIMESTAMP_MILLIS ? PQ_MILLIS
							       : PQ_MICROS;
			n->conv = u == PQ_MILLIS  ? CV_TS_MILLIS
				  : u == PQ_NANOS ? CV_TS_NANOS
						  : CV_TS_MICROS;
			return sl_type_prim(SL_TIMESTAMP);
		}
		if (dec) {
			n->conv = CV_DEC64;
			return sl_type_prim(SL_DOUBLE);
		}
		n->conv = CV_I64;
		return sl_type_prim(SL_BIGINT);
	case PQ_INT96: n->conv = CV_INT96; return sl_type_prim(SL_TIMESTAMP);
	case PQ_FLOAT: n->conv = CV_FLOAT; return sl_type_prim(SL_DOUBLE);
	case PQ_DOUBLE: n->conv = CV_DOUBLE; return sl_type_prim(SL_DOUBLE);
	case PQ_BYTE_ARRAY:
	case PQ_FLBA:
		if (dec) {
			if (e->type == PQ_FLBA && e->type_length <= 8 &&
			    e->type_length > 0) {
				n->conv = CV_DECBYTES;
				return sl_type_prim(SL_DOUBLE);
			}
			*why = "decimal wider than 8 bytes";
			return NULL;
		}
		n->conv = CV_BYTES;
		if (lt == PQ_LT_STRING || lt == PQ_LT_ENUM ||
		    lt == PQ_LT_JSON || ct == PQ_CT_UTF8 || ct == PQ_CT_ENUM ||
		    ct == PQ_CT_JSON)
			return sl_type_prim(SL_STRING);
		return sl_type_prim(SL_BINARY);
	default: *why = "unknown physical type"; return NULL;
	}
}

/* Build node k and its subtree from schema elements starting at *at. */
static int build_node(sl_parquet_file *f, int k, int *at, int depth, int def,
		      sl_err *err)
{
	rnode *n;
	const pq_schema_el *e;
	int i;
	/* nested counts can claim more elements than the footer has, though
	 * each one fits what follows it (fuzz_parquet: a write past the
	 * nodes); node k is element *at, so this bounds both */
	if (*at >= f->m.nschema || k >= f->m.nschema)
		return ferr(f, err, "schema tree runs past its %d elements",
			    f->m.nschema);
	n = &f->nodes[k];
	e = &f->m.schema[*at];
	n->el = e;
	n->leaf = -1;
	/* a footer without the (required) name field reads as "": found by
	 * tests/fuzz/fuzz_parquet.c (strndup of NULL) */
	n->name = e->name.p != NULL
		      ? strndup((const char *)e->name.p, e->name.len)
		      : strdup("");
	if (n->name == NULL)
		return sl_err_nomem(err);
	(*at)++;
	/* the root's own repetition (some writers say REQUIRED, some
	 * OPTIONAL) adds no level */
	n->def = depth == 0
		     ? 0
		     : def + (e->rep == PQ_OPTIONAL || e->rep == PQ_REPEATED);
	n->rep = depth > 0 && e->rep == PQ_REPEATED;
	if (depth > MAX_NEST)
		return ferr(f, err, "schema nests deeper than %d levels",
			    MAX_NEST);
	if (e->num_children < 0 || (e->type >= 0 && e->num_children == 0)) {
		/* a leaf */
		if (e->type < 0)
			return ferr(f, err,
				    "schema element '%s' has neither a type "
				    "nor children",
				    n->name);
		n->leaf = f->nleaves++;
		n->type = leaf_type(n, &n->why);
		if (n->rep)
			n->why = "repeated field", n->type = NULL;
		return 0;
	}
	if (e->num_children > f->m.nschema - *at)
		return ferr(f, err,
			    "schema element '%s' has %d children, only %d "
			    "elements follow",
			    n->name, e->num_children, f->m.nschema - *at);
	n->nchild = e->num_children;
	n->child = calloc((size_t)n->nchild + 1, sizeof *n->child);
	if (n->child == NULL)
		return sl_err_nomem(err);
	for (i = 0; i < n->nchild; i++) {
		int rc, c = f->nnodes++;
		n->child[i] = c;
		if ((rc = build_node(f, c, at, depth + 1, n->def, err)) != 0)
			return rc;
		n = &f->nodes[k];
	}
	return 0;
}

/* Engine STRUCT type of a group's supported children (k: group node). */
static sl_type *group_type(sl_parquet_file *f, int k, bool top, sl_err *err)
{
	rnode *n = &f->nodes[k];
	sl_type *st;
	int i, nf = 0, j = 0;
	for (i = 0; i < n->nchild; i++) {
		rnode *c = &f->nodes[n->child[i]];
		if (c->leaf < 0 && c->type == NULL && c->why == NULL) {
			const pq_schema_el *e = c->el;
			if (c->rep)
				c->why = "repeated field";
			else if (e->converted == PQ_CT_LIST ||
				 e->logical == PQ_LT_LIST)
				c->why = "LIST";
			else if (e->converted == PQ_CT_MAP ||
				 e->converted == PQ_CT_MAP_KEY_VALUE ||
				 e->logical == PQ_LT_MAP)
				c->why = "MAP";
			else if ((c->type = group_type(f, n->child[i], false,
						       err)) == NULL &&
				 c->why == NULL)
				return NULL;
		}
		nf += c->type != NULL;
	}
	if (!top && nf < n->nchild) {
		n->why = "struct with an unsupported field";
		return NULL;
	}
	if (!top && nf == 0) {
		n->why = "empty group";
		return NULL;
	}
	st = sl_type_struct_new(nf);
	if (st == NULL) {
		sl_err_nomem(err);
		return NULL;
	}
	for (i = 0; i < n->nchild; i++) {
		rnode *c = &f->nodes[n->child[i]];
		if (c->type == NULL)
			continue;
		if (sl_type_set_field(st, j++, c->name, sl_type_ref(c->type),
				      c->el->rep != PQ_REQUIRED) != 0) {
			sl_type_free(st);
			sl_err_nomem(err);
			return NULL;
		}
	}
	return st;
}

static int build_schema(sl_parquet_file *f, sl_err *err)
{
	int at = 0, rc, i, g;
	f->nodes = calloc((size_t)f->m.nschema + 1, sizeof *f->nodes);
	if (f->nodes == NULL)
		return sl_err_nomem(err);
	f->nnodes = 1;
	if (f->m.schema[0].num_children < 0)
		return ferr(f, err, "schema root has no children");
	if ((rc = build_node(f, 0, &at, 0, 0, err)) != 0)
		return rc;
	if (at != f->m.nschema)
		return ferr(f, err, "schema has %d elements, its tree %d",
			    f->m.nschema, at);
	f->leaf_node = calloc((size_t)f->nleaves + 1, sizeof *f->leaf_node);
	if (f->leaf_node == NULL)
		return sl_err_nomem(err);
	for (i = 0; i < f->nnodes; i++)
		if (f->nodes[i].leaf >= 0)
			f->leaf_node[f->nodes[i].leaf] = i;
	f->schema = group_type(f, 0, true, err);
	if (f->schema == NULL)
		return err ? err->code : SL_EDATA;
	for (g = 0; g < f->m.nrow_groups; g++) {
		const pq_row_group *rg = &f->m.row_groups[g];
		if (rg->ncolumns != f->nleaves)
			return ferr(f, err,
				    "row group %d has %d column chunks, the "
				    "schema %d columns",
				    g, rg->ncolumns, f->nleaves);
		if (rg->num_rows < 0 || rg->num_rows > MAX_ROWS)
			return ferr(f, err, "row group %d claims %lld rows", g,
				    (long long)rg->num_rows);
	}
	return 0;
}

/* ---- opening ---- */

/* n bytes at off: from memory, or read from the file (a file cut short
 * since its footer was read is an error, not a crash, as with mmap). */
static int fetch(sl_parquet_file *f, uint64_t off, size_t n, uint8_t *dst,
		 sl_err *err)
{
	size_t got = 0;
	if (f->data != NULL) {
		memcpy(dst, f->data + off, n);
		return 0;
	}
	while (got < n) {
		ssize_t k =
		    pread(f->fd, dst + got, n - got, (off_t)(off + got));
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return sl_err_set(err, SL_EIO,
					  "parquet: cannot read '%s': %s",
					  f->name, strerror(errno));
		if (k == 0)
			return ferr(f, err,
				    "file is shorter than when it was opened "
				    "(%llu bytes wanted at %llu)",
				    (unsigned long long)n,
				    (unsigned long long)off);
		got += (size_t)k;
	}
	return 0;
}

static sl_parquet_file *open_bytes(sl_parquet_file *f, sl_err *err)
{
	uint8_t head[4], tail[8];
	const uint8_t *footer;
	uint32_t flen;
	int rc;
	if (f->len < 12) {
		ferr(f, err, "file is too short to be Parquet (%zu bytes)",
		     f->len);
		goto fail;
	}
	if (fetch(f, 0, 4, head, err) != 0 ||
	    fetch(f, f->len - 8, 8, tail, err) != 0)
		goto fail;
	if (memcmp(head, "PAR1", 4) != 0) {
		sl_err_set(err, SL_EDATA,
			   "parquet: '%s' is not a Parquet file (bad magic at "
			   "the start)",
			   f->name);
		goto fail;
	}
	if (memcmp(tail + 4, "PARE", 4) == 0) {
		ferr(f, err, "encrypted footers are not supported");
		goto fail;
	}
	if (memcmp(tail + 4, "PAR1", 4) != 0) {
		sl_err_set(err, SL_EDATA,
			   "parquet: '%s' is not a Parquet file or is "
			   "truncated (bad magic at the end)",
			   f->name);
		goto fail;
	}
	flen = pq_get_u32le(tail);
	if (flen > f->len - 12) {
		ferr(f, err,
		     "footer length %u is past the start of the file (%zu "
		     "bytes)",
		     flen, f->len);
		goto fail;
	}
	if (f->data != NULL) {
		footer = f->data + f->len - 8 - flen;
	} else {
		/* the decoded footer points into these bytes */
		if ((f->own = malloc((size_t)flen + 1)) == NULL) {
			sl_err_nomem(err);
			goto fail;
		}
		if (fetch(f, f->len - 8 - flen, flen, f->own, err) != 0)
			goto fail;
		footer = f->own;
	}
	rc = pq_meta_decode(footer, flen, &f->m, err);
	if (rc != 0) {
		char m[SL_ERR_MSG];
		snprintf(m, sizeof m, "%s", err ? err->msg : "");
		if (rc == SL_EDATA)
			ferr(f, err, "corrupt footer: %s", m);
		goto fail;
	}
	if (build_schema(f, err) != 0)
		goto fail;
	return f;
fail:
	sl_parquet_file_free(f);
	return NULL;
}

static sl_parquet_file *file_new(const char *name, sl_err *err)
{
	sl_parquet_file *f = calloc(1, sizeof *f);
	if (f == NULL || (f->name = strdup(name)) == NULL) {
		free(f);
		sl_err_nomem(err);
		return NULL;
	}
	f->fd = -1;
	return f;
}

sl_parquet_file *sl_parquet_open_buf(const char *name, const void *data,
				     size_t len, sl_err *err)
{
	sl_parquet_file *f = file_new(name, err);
	if (f == NULL)
		return NULL;
	f->data = data;
	f->len = len;
	return open_bytes(f, err);
}

sl_parquet_file *sl_parquet_open(const char *path, sl_err *err)
{
	sl_parquet_file *f = file_new(path, err);
	struct stat st;
	if (f == NULL)
		return NULL;
	/* Only the footer is read now, and later only the column chunks a
	 * read asks for: a projection reads a fraction of the file. */
	f->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0 || fstat(f->fd, &st) != 0) {
		sl_err_set(err, SL_EIO, "parquet: cannot read '%s': %s", path,
			   strerror(errno));
		sl_parquet_file_free(f);
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		sl_err_set(err, SL_EIO, "parquet: cannot read '%s': %s", path,
			   strerror(S_ISDIR(st.st_mode) ? EISDIR : EINVAL));
		sl_parquet_file_free(f);
		return NULL;
	}
	f->len = (size_t)st.st_size;
	return open_bytes(f, err);
}

void sl_parquet_file_free(sl_parquet_file *f)
{
	int i;
	if (f == NULL)
		return;
	for (i = 0; i < f->nnodes; i++) {
		free(f->nodes[i].name);
		free(f->nodes[i].child);
		sl_type_free(f->nodes[i].type);
	}
	free(f->nodes);
	free(f->leaf_node);
	free(f->top);
	sl_type_free(f->schema);
	pq_meta_release(&f->m);
	free(f->own);
	if (f->fd >= 0)
		close(f->fd);
	free(f->name);
	free(f);
}

sl_type *sl_parquet_file_schema(const sl_parquet_file *f)
{
	return f->schema;
}

int64_t sl_parquet_file_rows(const sl_parquet_file *f)
{
	return f->m.num_rows;
}

int sl_parquet_file_row_groups(const sl_parquet_file *f)
{
	return f->m.nrow_groups;
}

int64_t sl_parquet_row_group_rows(const sl_parquet_file *f, int rg)
{
	return rg >= 0 && rg < f->m.nrow_groups ? f->m.row_groups[rg].num_rows
						: 0;
}

/* ---- reading one leaf of one row group ---- */

typedef struct rd {
	sl_parquet_file *f;
	const rnode *n;
	const pq_column_meta *m;
	const char *cname;
	sl_col *col;
	uint8_t *defs;
	int64_t nrows, done;
	int64_t cap; /* rows col and defs have room for (rd_room) */
	/* dictionary: physical values */
	void *dict;
	int64_t ndict;
	/* scratch */
	uint8_t *page;
	size_t page_cap;
	uint32_t *u32;
	size_t u32_cap;
	void *pv;
	size_t pv_cap;
} rd;

static size_t psize(int ptype)
{
	switch (ptype) {
	case PQ_BOOLEAN: return 1;
	case PQ_INT32:
	case PQ_FLOAT: return 4;
	case PQ_INT64:
	case PQ_DOUBLE: return 8;
	case PQ_INT96: return 12;
	default: return sizeof(sl_str);
	}
}

static bool grow(void **p, size_t *cap, size_t need)
{
	void *n;
	if (need <= *cap)
		return true;
	n = realloc(*p, need);
	if (n == NULL)
		return false;
	*p = n;
	*cap = need;
	return true;
}

/* PLAIN values: count of them from p[0..n) into out (psize each). */
static int plain_decode(rd *r, const uint8_t *p, size_t n, int64_t count,
			void *out, sl_err *err)
{
	int t = r->m->type;
	int64_t i;
	if (t == PQ_BOOLEAN) {
		uint8_t *o = out;
		if ((uint64_t)count > (uint64_t)n * 8)
			goto short_;
		for (i = 0; i < count; i++)
			o[i] = (p[i >> 3] >> (i & 7)) & 1;
		return 0;
	}
	if (t == PQ_BYTE_ARRAY) {
		sl_str *o = out;
		size_t at = 0;
		for (i = 0; i < count; i++) {
			uint32_t l;
			if (n - at < 4)
				goto short_;
			l = pq_get_u32le(p + at);
			at += 4;
			if (l > n - at)
				goto short_;
			o[i].p = (const char *)p + at;
			o[i].len = l;
			at += l;
		}
		return 0;
	}
	if (t == PQ_FLBA) {
		sl_str *o = out;
		size_t w = (size_t)r->n->el->type_length;
		if (r->n->el->type_length <= 0)
			return ferr(r->f, err,
				    "column '%s' has a fixed length of %d",
				    r->cname, r->n->el->type_length);
		if ((uint64_t)count > n / w)
			goto short_;
		for (i = 0; i < count; i++) {
			o[i].p = (const char *)p + (size_t)i * w;
			o[i].len = (uint32_t)w;
		}
		return 0;
	}
	if ((uint64_t)count > n / psize(t))
		goto short_;
	memcpy(out, p, (size_t)count * psize(t));
	return 0;
short_:
	return ferr(r->f, err,
		    "column '%s': page holds fewer values than it "
		    "says",
		    r->cname);
}

static int64_t be_int(const sl_str *s)
{
	uint64_t v = 0;
	uint32_t k;
	for (k = 0; k < s->len; k++)
		v = v << 8 | (uint8_t)s->p[k];
	if (s->len < 8 && s->len > 0 && ((uint8_t)s->p[0] & 0x80))
		v |= ~UINT64_C(0) << (8 * s->len);
	return (int64_t)v;
}

/* Values out of the engine's range wrap, as Java's long arithmetic does,
 * instead of being undefined behaviour. */
static int64_t wrap_mul(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a * (uint64_t)b);
}

static int64_t floordiv(int64_t a, int64_t b)
{
	int64_t q = a / b;
	return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

/* Store physical value v (psize bytes) at row i of the output column. */
static void put_value(rd *r, int64_t i, const void *v)
{
	sl_col *c = r->col;
	int32_t i32;
	int64_t i64;
	float f32;
	double f64;
	switch (r->n->conv) {
	case CV_BOOL: sl_col_u8(c)[i] = *(const uint8_t *)v; break;
	case CV_I32: memcpy(&sl_col_i32(c)[i], v, 4); break;
	case CV_U32:
		memcpy(&i32, v, 4);
		sl_col_i64(c)[i] = (int64_t)(uint32_t)i32;
		break;
	case CV_I64:
	case CV_TS_MICROS: memcpy(&sl_col_i64(c)[i], v, 8); break;
	case CV_TS_MILLIS:
		memcpy(&i64, v, 8);
		sl_col_i64(c)[i] = wrap_mul(i64, 1000);
		break;
	case CV_TS_NANOS:
		memcpy(&i64, v, 8);
		sl_col_i64(c)[i] = floordiv(i64, 1000);
		break;
	case CV_INT96: {
		const uint8_t *b = v;
		int64_t nanos;
		memcpy(&nanos, b, 8);
		i32 = (int32_t)pq_get_u32le(b + 8);
		sl_col_i64(c)[i] =
		    (int64_t)((uint64_t)wrap_mul((int64_t)i32 - 2440588,
						 SL_US_PER_DAY) +
			      (uint64_t)floordiv(nanos, 1000));
		break;
	}
	case CV_FLOAT:
		memcpy(&f32, v, 4);
		sl_col_f64(c)[i] = f32;
		break;
	case CV_DOUBLE: memcpy(&sl_col_f64(c)[i], v, 8); break;
	case CV_DEC32:
		memcpy(&i32, v, 4);
		sl_col_f64(c)[i] = i32 / r->n->scale;
		break;
	case CV_DEC64:
		memcpy(&i64, v, 8);
		f64 = (double)i64;
		sl_col_f64(c)[i] = f64 / r->n->scale;
		break;
	case CV_DECBYTES:
		sl_col_f64(c)[i] = (double)be_int(v) / r->n->scale;
		break;
	case CV_BYTES: sl_col_str(c)[i] = *(const sl_str *)v; break;
	default: break;
	}
}

static int bad_values(rd *r, int enc, sl_err *err)
{
	return ferr(r->f, err, "column '%s': corrupt %s values", r->cname,
		    enc_name(enc));
}

/* DELTA_BINARY_PACKED ints, DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY
 * strings, BYTE_STREAM_SPLIT fixed-width values: nn of them into r->pv. */
static int delta_decode(rd *r, int enc, const uint8_t *p, size_t n, int64_t nn,
			sl_err *err)
{
	int t = r->m->type;
	int64_t *tmp, *pre = NULL, i;
	size_t used = 0, used2 = 0;
	if (enc == PQ_BYTE_STREAM_SPLIT) {
		size_t w = psize(t), j;
		uint8_t *o = r->pv;
		if (w > 8 || (uint64_t)nn > n / w)
			return bad_values(r, enc, err);
		for (i = 0; i < nn; i++)
			for (j = 0; j < w; j++)
				o[(size_t)i * w + j] =
				    p[j * (size_t)nn + (size_t)i];
		return 0;
	}
	if ((enc == PQ_DELTA_BINARY_PACKED && t != PQ_INT32 && t != PQ_INT64) ||
	    (enc != PQ_DELTA_BINARY_PACKED && t != PQ_BYTE_ARRAY))
		return ferr(r->f, err,
			    "unsupported encoding %s for %s in column '%s'",
			    enc_name(enc), ptype_name(t), r->cname);
	tmp = malloc(((size_t)nn + 1) * sizeof *tmp);
	if (tmp == NULL)
		return sl_err_nomem(err);
	if (enc == PQ_DELTA_BINARY_PACKED) {
		if (!pq_dbp_decode(p, n, nn, tmp, &used, t == PQ_INT32)) {
			free(tmp);
			return bad_values(r, enc, err);
		}
		for (i = 0; i < nn; i++) {
			if (t == PQ_INT32)
				((int32_t *)r->pv)[i] = (int32_t)tmp[i];
			else
				((int64_t *)r->pv)[i] = tmp[i];
		}
		free(tmp);
		return 0;
	}
	if (enc == PQ_DELTA_BYTE_ARRAY) {
		pre = malloc(((size_t)nn + 1) * sizeof *pre);
		if (pre == NULL ||
		    !pq_dbp_decode(p, n, nn, pre, &used2, true)) {
			free(tmp);
			free(pre);
			return pre ? bad_values(r, enc, err)
				   : sl_err_nomem(err);
		}
		p += used2;
		n -= used2;
	}
	if (!pq_dbp_decode(p, n, nn, tmp, &used, true)) {
		free(tmp);
		free(pre);
		return bad_values(r, enc, err);
	}
	p += used;
	n -= used;
	{
		sl_str *o = r->pv, last = { "", 0 };
		size_t at = 0;
		for (i = 0; i < nn; i++) {
			uint64_t len = (uint64_t)tmp[i],
				 pl = pre ? (uint64_t)pre[i] : 0;
			if (len > n - at || pl > last.len) {
				free(tmp);
				free(pre);
				return bad_values(r, enc, err);
			}
			if (pre == NULL) {
				o[i].p = (const char *)p + at;
				o[i].len = (uint32_t)len;
			} else {
				char *d;
				if (r->col->arena == NULL &&
				    (r->col->arena = sl_arena_new()) == NULL)
					break;
				d = sl_arena_alloc(r->col->arena, pl + len + 1);
				if (d == NULL)
					break;
				memcpy(d, last.p, pl);
				memcpy(d + pl, p + at, len);
				o[i].p = d;
				o[i].len = (uint32_t)(pl + len);
			}
			last = o[i];
			at += len;
		}
		free(tmp);
		free(pre);
		return i == nn ? 0 : sl_err_nomem(err);
	}
}

/* The values of one page, given its definition levels in r->defs[done..]
 * (or none when the leaf is required) and num values (rows). */
/* The column slot is the physical value itself: no conversion. */
static bool identity(const rd *r)
{
	int c = r->n->conv;
	return c == CV_BOOL || c == CV_I32 || c == CV_I64 ||
	       c == CV_TS_MICROS || c == CV_DOUBLE || c == CV_BYTES;
}

#define SCATTER(T)                                                             \
	do {                                                                   \
		T *dst = (T *)r->col->data + r->done;                          \
		const T *s = src;                                              \
		if (ids != NULL && nn == num) {                                \
			for (i = 0; i < num; i++)                              \
				dst[i] = s[ids[i]];                            \
		} else if (ids != NULL) {                                      \
			for (i = 0, k = 0; i < num; i++)                       \
				if (d[i] == maxd)                              \
					dst[i] = s[ids[k++]];                  \
		} else if (nn == num) {                                        \
			memcpy(dst, s, (size_t)num * sizeof(T));               \
		} else {                                                       \
			for (i = 0, k = 0; i < num; i++)                       \
				if (d[i] == maxd)                              \
					dst[i] = s[k++];                       \
		}                                                              \
	} while (0)

/* Values src (dictionary entries picked by ids, or in order when ids is
 * NULL) into the rows of the page whose level is the maximum. */
static void scatter(rd *r, const void *src, const uint32_t *ids,
		    const uint8_t *d, int64_t num, int64_t nn, int maxd,
		    size_t ps)
{
	int64_t i, k;
	switch (ps) {
	case 1: SCATTER(uint8_t); break;
	case 4: SCATTER(uint32_t); break;
	case 8: SCATTER(uint64_t); break;
	default: SCATTER(sl_str); break;
	}
}

static int page_values(rd *r, int enc, const uint8_t *p, size_t n, int64_t num,
		       sl_err *err)
{
	const void *src;
	const uint32_t *ids = NULL;
	int64_t i, nn = 0, k = 0;
	size_t ps = psize(r->m->type);
	int maxd = r->n->def;
	const uint8_t *d = r->defs + r->done;
	for (i = 0; i < num; i++)
		nn += d[i] == maxd;
	if (!grow(&r->pv, &r->pv_cap, ((size_t)nn + 1) * ps))
		return sl_err_nomem(err);
	if (enc == PQ_PLAIN) {
		int rc = plain_decode(r, p, n, nn, r->pv, err);
		if (rc != 0)
			return rc;
	} else if (enc == PQ_RLE_DICTIONARY || enc == PQ_PLAIN_DICTIONARY ||
		   (enc == PQ_RLE && r->m->type == PQ_BOOLEAN)) {
		pq_rle h;
		int bw;
		if (enc == PQ_RLE) {
			if (n < 4 || pq_get_u32le(p) > n - 4)
				return ferr(r->f, err,
					    "column '%s': bad RLE length",
					    r->cname);
			pq_rle_init(&h, p + 4, pq_get_u32le(p), 1);
		} else {
			if (r->dict == NULL)
				return ferr(r->f, err,
					    "column '%s': dictionary-encoded "
					    "page without a dictionary page",
					    r->cname);
			if (nn > 0 && n < 1)
				return ferr(r->f, err,
					    "column '%s': page ends before "
					    "its bit width",
					    r->cname);
			bw = n > 0 ? p[0] : 0;
			if (bw > 32)
				return ferr(r->f, err,
					    "column '%s': bad bit width %d",
					    r->cname, bw);
			pq_rle_init(&h, p + (n > 0), n - (n > 0), bw);
		}
		if (!grow((void **)&r->u32, &r->u32_cap,
			  ((size_t)nn + 1) * sizeof(uint32_t)))
			return sl_err_nomem(err);
		if (!pq_rle_get(&h, r->u32, nn))
			return ferr(r->f, err,
				    "column '%s': corrupt RLE/bit-packed "
				    "values",
				    r->cname);
		if (enc == PQ_RLE) {
			for (i = 0; i < nn; i++)
				((uint8_t *)r->pv)[i] = (uint8_t)r->u32[i];
		} else {
			uint32_t top = 0;
			for (i = 0; i < nn; i++)
				top = r->u32[i] > top ? r->u32[i] : top;
			if (nn > 0 && top >= (uint64_t)r->ndict) {
				for (i = 0; r->u32[i] < (uint64_t)r->ndict;)
					i++;
				return ferr(r->f, err,
					    "column '%s': dictionary index %u "
					    "out of range (dictionary has %lld "
					    "values)",
					    r->cname, r->u32[i],
					    (long long)r->ndict);
			}
			ids = r->u32;
		}
	} else if (enc == PQ_DELTA_BINARY_PACKED ||
		   enc == PQ_DELTA_LENGTH_BYTE_ARRAY ||
		   enc == PQ_DELTA_BYTE_ARRAY || enc == PQ_BYTE_STREAM_SPLIT) {
		int rc = delta_decode(r, enc, p, n, nn, err);
		if (rc != 0)
			return rc;
	} else {
		return ferr(r->f, err, "unsupported encoding %s in column '%s'",
			    enc_name(enc), r->cname);
	}
	src = ids != NULL ? r->dict : r->pv;
	if (identity(r)) {
		scatter(r, src, ids, d, num, nn, maxd, ps);
		for (i = 0; nn < num && i < num; i++)
			if (d[i] != maxd &&
			    sl_col_set_null(r->col, r->done + i) != 0)
				return sl_err_nomem(err);
		return 0;
	}
	for (i = 0; i < num; i++) {
		int64_t row = r->done + i;
		if (d[i] != maxd) {
			if (sl_col_set_null(r->col, row) != 0)
				return sl_err_nomem(err);
			continue;
		}
		if (ids != NULL)
			put_value(r, row,
				  (const char *)src + (size_t)ids[k++] * ps);
		else
			put_value(r, row, (const char *)src + (size_t)k++ * ps);
	}
	return 0;
}

/* Definition levels of num rows from p[0..n) into r->defs[done..]. */
static int levels(rd *r, const uint8_t *p, size_t n, int64_t num, sl_err *err)
{
	pq_rle h;
	int64_t i;
	if (r->n->def == 0) {
		memset(r->defs + r->done, 0, (size_t)num);
		return 0;
	}
	if (!grow((void **)&r->u32, &r->u32_cap,
		  ((size_t)num + 1) * sizeof(uint32_t)))
		return sl_err_nomem(err);
	pq_rle_init(&h, p, n, pq_bit_width((uint64_t)r->n->def));
	if (!pq_rle_get(&h, r->u32, num))
		return ferr(r->f, err, "column '%s': corrupt definition levels",
			    r->cname);
	for (i = 0; i < num; i++) {
		if (r->u32[i] > (uint32_t)r->n->def)
			return ferr(r->f, err,
				    "column '%s': definition level %u above "
				    "the maximum %d",
				    r->cname, r->u32[i], r->n->def);
		r->defs[r->done + i] = (uint8_t)r->u32[i];
	}
	return 0;
}

/* Decompress into the column's arena (strings keep pointing there) or
 * into scratch. */
static uint8_t *inflate_to(rd *r, const uint8_t *src, size_t n, size_t want,
			   bool keep, sl_err *err)
{
	uint8_t *dst;
	/* a page many thousand times its compressed size is a lie that
	 * would only make us allocate */
	if (want > ((size_t)1 << 28) && want / 4096 > n) {
		ferr(r->f, err,
		     "column '%s': page claims %zu bytes from %zu compressed",
		     r->cname, want, n);
		return NULL;
	}
	if (keep) {
		if (r->col->arena == NULL &&
		    (r->col->arena = sl_arena_new()) == NULL)
			return sl_err_nomem(err), NULL;
		dst = (uint8_t *)sl_arena_alloc(r->col->arena, want + 1);
	} else {
		if (!grow((void **)&r->page, &r->page_cap, want + 1))
			return sl_err_nomem(err), NULL;
		dst = r->page;
	}
	if (dst == NULL)
		return sl_err_nomem(err), NULL;
	if (pq_decompress(r->m->codec, src, n, dst, want, err) != 0) {
		char m[SL_ERR_MSG];
		snprintf(m, sizeof m, "%s", err ? err->msg : "");
		ferr(r->f, err, "column '%s': %s", r->cname, m);
		return NULL;
	}
	return dst;
}

static int dict_page(rd *r, const pq_page_header *h, const uint8_t *src,
		     sl_err *err)
{
	bool str = psize(r->m->type) == sizeof(sl_str);
	uint8_t *p;
	size_t ps = psize(r->m->type);
	if (r->dict != NULL)
		return ferr(r->f, err, "column '%s' has two dictionary pages",
			    r->cname);
	if (h->encoding != PQ_PLAIN && h->encoding != PQ_PLAIN_DICTIONARY)
		return ferr(r->f, err,
			    "unsupported dictionary encoding %s in column '%s'",
			    enc_name(h->encoding), r->cname);
	if ((uint64_t)h->num_values > (uint64_t)h->uncompressed_size * 8 + 8)
		return ferr(r->f, err,
			    "column '%s': dictionary of %d values in %d bytes",
			    r->cname, h->num_values, h->uncompressed_size);
	p = inflate_to(r, src, (size_t)h->compressed_size,
		       (size_t)h->uncompressed_size, str, err);
	if (p == NULL)
		return err ? err->code : SL_EDATA;
	r->dict = malloc(((size_t)h->num_values + 1) * ps);
	if (r->dict == NULL)
		return sl_err_nomem(err);
	r->ndict = h->num_values;
	return plain_decode(r, p, (size_t)h->uncompressed_size, r->ndict,
			    r->dict, err);
}

/* Room for rows [0, upto) in r->col and r->defs.  They grow with the
 * pages (doubling, never past the row group's count): the footer's row
 * count is only a claim, so nothing proportional to it is allocated
 * before pages back it up (a 2 KB file claiming 800 million rows asked
 * for 6 GB at once; fuzz_parquet). */
static int rd_room(rd *r, int64_t upto, sl_err *err)
{
	sl_col *c = r->col;
	size_t w = (size_t)sl_type_width(c->type);
	int64_t cap = r->cap > 0 ? r->cap : 4096;
	void *d;
	uint8_t *lv;
	if (upto <= r->cap)
		return 0;
	while (cap < upto)
		cap *= 2;
	if (cap > r->nrows)
		cap = r->nrows;
	if ((d = realloc(c->data, (size_t)cap * w + 1)) == NULL)
		return sl_err_nomem(err);
	c->data = d;
	if (c->type->kind == SL_STRING || c->type->kind == SL_BINARY)
		memset((char *)d + (size_t)r->cap * w, 0,
		       (size_t)(cap - r->cap) * w); /* as sl_col_new */
	if (c->nulls != NULL) {
		size_t ob = (size_t)(r->cap + 7) / 8 + 1;
		size_t nb = (size_t)(cap + 7) / 8 + 1;
		uint8_t *nl = realloc(c->nulls, nb);
		if (nl == NULL)
			return sl_err_nomem(err);
		memset(nl + ob, 0, nb - ob);
		c->nulls = nl;
	}
	if ((lv = realloc(r->defs, (size_t)cap + 1)) == NULL)
		return sl_err_nomem(err);
	r->defs = lv;
	r->cap = cap;
	c->len = cap;
	return 0;
}

static int data_page(rd *r, const pq_page_header *h, const uint8_t *src,
		     sl_err *err)
{
	int64_t num = h->num_values;
	bool str = psize(r->m->type) == sizeof(sl_str);
	const uint8_t *p, *vals;
	size_t n;
	int rc;
	if (num > r->nrows - r->done)
		return ferr(r->f, err,
			    "column '%s' has more values than the row group's "
			    "%lld rows",
			    r->cname, (long long)r->nrows);
	if ((rc = rd_room(r, r->done + num, err)) != 0)
		return rc;
	if (h->type == PQ_DATA_PAGE) {
		bool keep = str && (h->encoding == PQ_PLAIN ||
				    h->encoding == PQ_DELTA_LENGTH_BYTE_ARRAY);
		if (!h->has_data)
			return ferr(r->f, err,
				    "column '%s': data page without its "
				    "header",
				    r->cname);
		p = inflate_to(r, src, (size_t)h->compressed_size,
			       (size_t)h->uncompressed_size, keep, err);
		if (p == NULL)
			return err ? err->code : SL_EDATA;
		n = (size_t)h->uncompressed_size;
		vals = p;
		if (r->n->def > 0) {
			uint32_t dl;
			if (h->def_encoding != PQ_RLE)
				return ferr(r->f, err,
					    "unsupported encoding %s for the "
					    "definition levels of column '%s'",
					    enc_name(h->def_encoding),
					    r->cname);
			if (n < 4 || (dl = pq_get_u32le(p)) > n - 4)
				return ferr(r->f, err,
					    "column '%s': definition levels "
					    "longer than the page",
					    r->cname);
			if ((rc = levels(r, p + 4, dl, num, err)) != 0)
				return rc;
			vals = p + 4 + dl;
			n -= 4 + dl;
		} else {
			levels(r, NULL, 0, num, err);
		}
	} else {
		size_t lv, cs = (size_t)h->compressed_size;
		bool keep = str && (h->encoding == PQ_PLAIN ||
				    h->encoding == PQ_DELTA_LENGTH_BYTE_ARRAY);
		if (!h->has_v2 || h->def_len < 0 || h->rep_len < 0 ||
		    (size_t)h->def_len + (size_t)h->rep_len > cs ||
		    h->def_len + (int64_t)h->rep_len > h->uncompressed_size)
			return ferr(r->f, err,
				    "column '%s': bad data page V2 header",
				    r->cname);
		lv = (size_t)h->def_len + (size_t)h->rep_len;
		if ((rc = levels(r, src + h->rep_len, (size_t)h->def_len, num,
				 err)) != 0)
			return rc;
		n = (size_t)h->uncompressed_size - lv;
		if (h->is_compressed && r->m->codec != PQ_UNCOMPRESSED) {
			vals = inflate_to(r, src + lv, cs - lv, n, keep, err);
			if (vals == NULL)
				return err ? err->code : SL_EDATA;
		} else {
			if (cs - lv != n)
				return ferr(r->f, err,
					    "column '%s': page sizes disagree",
					    r->cname);
			vals = src + lv;
			if (keep) {
				uint8_t *cp;
				if (r->col->arena == NULL &&
				    (r->col->arena = sl_arena_new()) == NULL)
					return sl_err_nomem(err);
				cp = (uint8_t *)sl_arena_alloc(r->col->arena,
							       n + 1);
				if (cp == NULL)
					return sl_err_nomem(err);
				memcpy(cp, vals, n);
				vals = cp;
			}
		}
	}
	rc = page_values(r, h->encoding, vals, n, num, err);
	if (rc == 0)
		r->done += num;
	return rc;
}

static int walk_pages(rd *r, const uint8_t *base, int64_t end, sl_err *err);

static int read_pages(rd *r, sl_err *err)
{
	const pq_column_meta *m = r->m;
	int64_t start = m->data_page_offset;
	size_t limit = r->f->len - 8;
	uint8_t *buf;
	int rc;
	if (m->dictionary_page_offset >= 4 && m->dictionary_page_offset < start)
		start = m->dictionary_page_offset;
	if (start < 4 || (uint64_t)start >= limit ||
	    m->total_compressed_size < 0 ||
	    (uint64_t)m->total_compressed_size > limit - (uint64_t)start)
		return ferr(r->f, err,
			    "column '%s': chunk at %lld (%lld bytes) is "
			    "outside the file",
			    r->cname, (long long)start,
			    (long long)m->total_compressed_size);
	if (r->f->data != NULL)
		return walk_pages(r, r->f->data + start,
				  m->total_compressed_size, err);
	buf = malloc((size_t)m->total_compressed_size + 1);
	if (buf == NULL)
		return sl_err_nomem(err);
	rc = fetch(r->f, (uint64_t)start, (size_t)m->total_compressed_size, buf,
		   err);
	if (rc == 0)
		rc = walk_pages(r, buf, m->total_compressed_size, err);
	free(buf);
	return rc;
}

/* The pages of one column chunk, base[0..end). */
static int walk_pages(rd *r, const uint8_t *base, int64_t end, sl_err *err)
{
	int64_t start = 0;
	while (r->done < r->nrows) {
		pq_page_header h;
		size_t used;
		const uint8_t *src;
		int rc;
		if (start >= end)
			return ferr(r->f, err,
				    "column '%s' ends after %lld of %lld rows",
				    r->cname, (long long)r->done,
				    (long long)r->nrows);
		rc = pq_page_header_decode(base + start, (size_t)(end - start),
					   &h, &used, err);
		if (rc != 0) {
			char msg[SL_ERR_MSG];
			snprintf(msg, sizeof msg, "%s", err ? err->msg : "");
			return ferr(r->f, err,
				    "column '%s': corrupt page header: %s",
				    r->cname, msg);
		}
		start += (int64_t)used;
		if (h.compressed_size > end - start)
			return ferr(r->f, err,
				    "column '%s': page of %d bytes runs past "
				    "its column chunk",
				    r->cname, h.compressed_size);
		src = base + start;
		start += h.compressed_size;
		if (h.type == PQ_DICTIONARY_PAGE)
			rc = dict_page(r, &h, src, err);
		else if (h.type == PQ_DATA_PAGE || h.type == PQ_DATA_PAGE_V2)
			rc = data_page(r, &h, src, err);
		else
			rc = 0; /* index pages: skipped */
		if (rc != 0)
			return rc;
	}
	return 0;
}

/* Read leaf node k of row group g into *col with its levels in *defs. */
static int read_leaf(sl_parquet_file *f, int g, int k, int64_t nrows,
		     sl_col **col, uint8_t **defs, sl_err *err)
{
	const rnode *n = &f->nodes[k];
	const pq_column_chunk *cc = &f->m.row_groups[g].columns[n->leaf];
	rd r;
	int rc;
	memset(&r, 0, sizeof r);
	r.f = f;
	r.n = n;
	r.m = &cc->meta;
	r.cname = n->name;
	r.nrows = nrows;
	if (!cc->has_meta)
		return ferr(f, err, "column '%s' has no metadata", n->name);
	if (cc->meta.type != n->el->type)
		return ferr(f, err,
			    "column '%s' is %s in its chunk, %s in the schema",
			    n->name, ptype_name(cc->meta.type),
			    ptype_name(n->el->type));
	/* no rows yet: rd_room makes room as the pages come; not zeroed:
	 * every row is written (a value or a null) before the column is
	 * handed out */
	r.col = sl_col_new_raw(n->type, 0);
	r.defs = malloc(1);
	if (r.col == NULL || r.defs == NULL) {
		rc = sl_err_nomem(err);
		goto out;
	}
	rc = read_pages(&r, err);
	if (rc == 0)
		r.col->len = nrows;
out:
	free(r.dict);
	free(r.page);
	free(r.u32);
	free(r.pv);
	if (rc != 0) {
		sl_col_free(r.col);
		free(r.defs);
		return rc;
	}
	*col = r.col;
	*defs = r.defs;
	return 0;
}

/* Read node k (leaf or group) of row group g. */
static int read_node(sl_parquet_file *f, int g, int k, int64_t nrows,
		     sl_col **col, uint8_t **defs, sl_err *err)
{
	const rnode *n = &f->nodes[k];
	sl_col *c;
	uint8_t *first = NULL;
	int i, j = 0, rc;
	if (n->leaf >= 0)
		return read_leaf(f, g, k, nrows, col, defs, err);
	c = sl_col_new(n->type, nrows);
	if (c == NULL)
		return sl_err_nomem(err);
	for (i = 0; i < n->nchild; i++) {
		sl_col *cc;
		uint8_t *d;
		if (f->nodes[n->child[i]].type == NULL)
			continue;
		rc = read_node(f, g, n->child[i], nrows, &cc, &d, err);
		if (rc != 0) {
			sl_col_free(c);
			free(first);
			return rc;
		}
		sl_col_free(c->child[j]);
		c->child[j++] = cc;
		if (first == NULL)
			first = d;
		else
			free(d);
	}
	if (n->el->rep == PQ_OPTIONAL && first != NULL) {
		int64_t r;
		for (r = 0; r < nrows; r++)
			if (first[r] < n->def && sl_col_set_null(c, r) != 0) {
				sl_col_free(c);
				free(first);
				return sl_err_nomem(err);
			}
	}
	*col = c;
	*defs = first;
	return 0;
}

static int find_top(const sl_parquet_file *f, const char *name)
{
	const rnode *root = &f->nodes[0];
	int i;
	for (i = 0; i < root->nchild; i++)
		if (strcasecmp(f->nodes[root->child[i]].name, name) == 0)
			return root->child[i];
	return -1;
}

static int check_type(sl_parquet_file *f, const rnode *n, const sl_field *fl,
		      sl_err *err)
{
	sl_buf a, b;
	if (n->type == NULL)
		return sl_err_set(err, SL_EINVAL,
				  "parquet: '%s': column '%s' has an "
				  "unsupported type (%s)",
				  f->name, fl->name, n->why ? n->why : "?");
	if (sl_type_equal(n->type, fl->type))
		return 0;
	sl_buf_init(&a);
	sl_buf_init(&b);
	sl_type_sql(fl->type, &a);
	sl_type_sql(n->type, &b);
	sl_err_set(err, SL_EANALYSIS,
		   "parquet: '%s': column '%s' cannot be converted: expected "
		   "%s, found %s",
		   f->name, fl->name, sl_buf_cstr(&a), sl_buf_cstr(&b));
	sl_buf_release(&a);
	sl_buf_release(&b);
	return SL_EANALYSIS;
}

sl_batch *sl_parquet_read_row_group(sl_parquet_file *f, int g, sl_type *schema,
				    sl_err *err)
{
	sl_type *want = schema ? schema : f->schema;
	sl_col **cols;
	int64_t nrows;
	int i, rc = 0;
	if (g < 0 || g >= f->m.nrow_groups) {
		sl_err_set(err, SL_EINVAL, "parquet: '%s' has no row group %d",
			   f->name, g);
		return NULL;
	}
	nrows = f->m.row_groups[g].num_rows;
	cols = calloc((size_t)want->nfields + 1, sizeof *cols);
	if (cols == NULL) {
		sl_err_nomem(err);
		return NULL;
	}
	for (i = 0; i < want->nfields && rc == 0; i++) {
		const sl_field *fl = &want->fields[i];
		int k = find_top(f, fl->name);
		uint8_t *defs = NULL;
		if (k < 0) {
			cols[i] = sl_col_new_null(fl->type, nrows);
			if (cols[i] == NULL)
				rc = sl_err_nomem(err);
			continue;
		}
		rc = check_type(f, &f->nodes[k], fl, err);
		if (rc == 0)
			rc = read_node(f, g, k, nrows, &cols[i], &defs, err);
		free(defs);
	}
	if (rc != 0) {
		for (i = 0; i < want->nfields; i++)
			sl_col_free(cols[i]);
		free(cols);
		return NULL;
	}
	{
		sl_batch *b = sl_batch_new(want, nrows, cols);
		free(cols);
		if (b == NULL)
			sl_err_nomem(err);
		return b;
	}
}

sl_batch *sl_parquet_read_all(sl_parquet_file *f, sl_type *schema, sl_err *err)
{
	sl_type *want = schema ? schema : f->schema;
	sl_batch **bs, *out;
	int g, n = f->m.nrow_groups;
	if (n == 1)
		return sl_parquet_read_row_group(f, 0, want, err);
	bs = calloc((size_t)n + 1, sizeof *bs);
	if (bs == NULL) {
		sl_err_nomem(err);
		return NULL;
	}
	for (g = 0; g < n; g++) {
		bs[g] = sl_parquet_read_row_group(f, g, want, err);
		if (bs[g] == NULL)
			break;
	}
	out = g == n ? sl_batch_concat(bs, n, want, err) : NULL;
	for (g = 0; g < n; g++)
		sl_batch_free(bs[g]);
	free(bs);
	return out;
}

/* Option ignoreCorruptFiles (Spark's): a file that is not valid Parquet
 * (SL_EDATA) is skipped instead of failing the read. */
static bool ignore_corrupt(const sl_options *opts, int rc)
{
	const char *v =
	    opts ? sl_options_get(opts, "ignoreCorruptFiles") : NULL;
	return rc == SL_EDATA && v != NULL && strcasecmp(v, "true") == 0;
}

sl_batch *sl_parquet_read_file(const char *path, sl_type *schema,
			       const sl_options *opts, sl_err *err)
{
	return sl_parquet_read_file_bad(path, schema, opts, NULL, err);
}

sl_batch *sl_parquet_read_file_bad(const char *path, sl_type *schema,
				   const sl_options *opts,
				   const sl_format_bad *bad, sl_err *err)
{
	sl_err mine;
	sl_parquet_file *f;
	sl_batch *b = NULL;
	if (err == NULL)
		err = &mine;
	f = sl_parquet_open(path, err);
	if (f != NULL) {
		b = sl_parquet_read_all(f, schema, err);
		sl_parquet_file_free(f);
	}
	if (b == NULL && schema != NULL && ignore_corrupt(opts, err->code)) {
		sl_format_bad_report(bad, path, 0, "corrupt_file", err->msg);
		b = sl_batch_empty(schema);
		if (b == NULL)
			sl_err_nomem(err);
	}
	return b;
}

sl_type *sl_parquet_infer(char *const *files, int nfiles,
			  const sl_options *opts, sl_err *err)
{
	sl_parquet_file *f = NULL;
	sl_type *t;
	sl_err mine;
	int k;
	if (err == NULL)
		err = &mine;
	for (k = 0; k < nfiles && f == NULL; k++) {
		f = sl_parquet_open(files[k], err);
		if (f == NULL && !ignore_corrupt(opts, err->code))
			return NULL;
	}
	if (f == NULL) {
		sl_err_set(err, SL_EANALYSIS,
			   "[UNABLE_TO_INFER_SCHEMA] Unable to infer schema "
			   "for Parquet. It must be specified manually.");
		return NULL;
	}
	t = sl_type_ref(f->schema);
	sl_parquet_file_free(f);
	return t;
}
