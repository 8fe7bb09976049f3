/*
 * ckpt_state: a stateful operator's store on disk, as Spark's HDFS state
 * store lays it out: <version>.delta for each batch (the changed and
 * removed keys) and now and then a <version>.snapshot (every key), in
 * state/<op>/0/.  Our encoding inside: head magic, records, and a trailer
 * (payload length, CRC-32, tail magic); the payload is LZ4 (Spark's
 * default state codec).  A small payload is one LZ4 block ("SLSZ"); a
 * snapshot or a big delta is a sequence of blocks ("SLSC"), each of
 * CHUNK_RAW raw bytes (the last shorter) cut at any byte, a record too, so
 * it is built and compressed a chunk at a time: one raw chunk and the
 * compressed output are all it holds (a 1M-group snapshot held its raw
 * payload and then its LZ4 bound beside it, 84 MiB, half the process).
 * The records are front-coded ("SLSF" head, state/front.h: each key as
 * the bytes it shares with the previous record's key and the rest,
 * lengths as uvars; a W1-100k record shrinks from 47 bytes to ~16),
 * coded by the store as it writes them (sl_state_write), and LZ4 then
 * runs over a third of the bytes (W4-100k: -10% CPU).  Every delta, a
 * durable checkpoint's too, stays uncompressed (no LZ4 past the
 * front coding: at W4-100k LZ4 took a third of the CPU for a fifth of
 * the bytes, 1.40 -> 1.11 MB a delta; bare, W4-100k's wall went from
 * ~70% of W1-100k's to ~100%; a delta past DELTA_CHUNKED is still
 * chunked under LZ4).  A temporary checkpoint's deltas (not durable)
 * were the first to stay uncompressed: with no fsync the
 * bytes LZ4 saves cost only the kernel's copy, less than LZ4 did (a
 * third of W1-100k's time); plain records, 3x the bytes, cost more than
 * LZ4 (6a7f228).  Its snapshots too: bare "SLSF", built whole (~22 MB at
 * W1-1M's 1M groups, ~15 B a group, held until the helper thread wrote
 * it) instead of LZ4 chunks on the batch's path (W1-1M: -12% process
 * CPU, W1-100k -7%, RSS the same).
 * Plain records ("SLSD" head), bare, "SLSZ" or "SLSC", still load.  The
 * records come from
 * sl_state_write (state.h), the store's own writer where it has one.
 * A delta goes
 * through the checkpoint's writer in the batch's order; a snapshot is a
 * redundant copy written on a helper thread off the batch's path.
 */
#include "state/ckpt_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lz4.h>

#include "core/crc32.h"
#include "core/fsutil.h"

#define MAGIC_HEAD 0x44534c53u /* "SLSD" */
#define MAGIC_TAIL 0x45534c53u /* "SLSE" */
#define MAGIC_LZ4                                                              \
	0x5a534c53u /* "SLSZ": u64 raw length, LZ4 block of the
				  payload (head magic and records) */
#define MAGIC_CHUNKED                                                          \
	0x43534c53u /* "SLSC": blocks of {u32 raw length, u32 LZ4 length,
			  LZ4 block}; their raw bytes in order are the plain
			  payload (head magic and records) */
#define MAGIC_FRONT                                                            \
	0x46534c53u /* "SLSF": the records front-coded, each {uvar bytes
			  its key shares with the previous record's key,
			  uvar length of the rest, the rest, uvar value
			  length + 1 (0: a remove), the value} */
#define TRAILER 16  /* u64 payload length, u32 crc, u32 magic */
/* An "SLSC" block's raw bytes (the reader takes up to CHUNK_MAX).  A
 * snapshot is chunked from its first CHUNK_RAW bytes; a delta only past
 * DELTA_CHUNKED (W4's 4-5 MB deltas stay one block compressed by the
 * writer's lane, off the batch's path; a snapshot's chunks are
 * compressed on it: it is built there and must not be held raw). */
#define CHUNK_RAW     ((size_t)1 << 20)
#define CHUNK_MAX     ((size_t)64 << 20)
#define DELTA_CHUNKED ((size_t)16 << 20)
/* LZ4's acceleration: at W4-200k, 8 instead of the default 1 takes a
 * fifth off the writer's compression (p50 2.5 -> 2.0 ms a delta on this
 * loaded machine) for 1.3% more bytes (541 -> 548 KB); the format and
 * its reader are the same LZ4 block. */
#define LZ4_ACCEL 8

/* ---- state files ---- */

/* A payload being built: the store's coded records in b, and b's
 * chunks compressed into z once it is chunked. */
struct wctx {
	sl_buf *b;    /* raw bytes not yet compressed (all, if not chunked) */
	sl_buf z;     /* "SLSC" and the blocks so far; empty until chunked */
	sl_state_sink sk; /* over b */
	size_t limit;     /* b's length that compresses its full chunks */
	size_t zhint;     /* room to reserve in z at its first block */
	bool failed; /* out of memory or a failed compression */
};

/* Compress b's full CHUNK_RAW chunks (all of it when last) into "SLSC"
 * blocks in w->z and keep the rest (part of a record) at b's start. */
static void flush_chunks(struct wctx *w, bool last)
{
	sl_buf *b = w->b;
	size_t off = 0, n;
	uint32_t magic = MAGIC_CHUNKED, hdr[2];
	int bound, got;
	if (sl_buf_failed(b))
		w->failed = true;
	if (w->failed)
		return;
	if (w->z.len == 0) {
		(void)sl_buf_reserve(&w->z, w->zhint);
		sl_buf_add(&w->z, &magic, sizeof magic);
	}
	while (b->len - off >= CHUNK_RAW || (last && off < b->len)) {
		n = b->len - off < CHUNK_RAW ? b->len - off : CHUNK_RAW;
		bound = LZ4_compressBound((int)n);
		if (!sl_buf_reserve(&w->z, sizeof hdr + (size_t)bound)) {
			w->failed = true;
			return;
		}
		got = LZ4_compress_fast(b->p + off,
					w->z.p + w->z.len + sizeof hdr, (int)n,
					bound, LZ4_ACCEL);
		if (got <= 0) { /* cannot happen with the bound */
			w->failed = true;
			return;
		}
		hdr[0] = (uint32_t)n;
		hdr[1] = (uint32_t)got;
		memcpy(w->z.p + w->z.len, hdr, sizeof hdr);
		w->z.len += sizeof hdr + (size_t)got;
		w->z.p[w->z.len] = '\0';
		off += n;
	}
	memmove(b->p, b->p + off, b->len - off);
	b->len -= off;
	b->p[b->len] = '\0';
	w->limit = CHUNK_RAW; /* from now on, a chunk at a time */
}

/* The sink's spill: compress b's full chunks (from then on a chunk at a
 * time). */
static void spill_chunks(void *ud)
{
	struct wctx *w = ud;
	flush_chunks(w, false);
	w->sk.limit = w->limit;
}

/* The payload of a state file: head magic and front-coded records (no
 * trailer), or "SLSC" blocks of it once it reached its kind's chunking
 * length (then already compressed; compress_payload leaves it); plain:
 * never chunked (a temporary checkpoint's snapshot, written bare).  *last:
 * the length of op's previous one of this kind (a delta or a snapshot),
 * reserved with some room for growth, then updated.  Out of memory: b
 * failed. */
static void state_payload(sl_buf *b, sl_state *s, bool full, bool plain,
			  size_t *last)
{
	struct wctx w;
	uint32_t magic = MAGIC_FRONT;
	size_t hint = last != NULL ? *last + *last / 4 : 0;
	w.b = b;
	sl_buf_init(&w.z);
	w.limit = plain ? SIZE_MAX : full ? CHUNK_RAW : DELTA_CHUNKED;
	w.sk.b = b;
	w.sk.limit = w.limit;
	w.sk.spill = spill_chunks;
	w.sk.ud = &w;
	sl_buf_init(&w.sk.prev);
	w.zhint = hint;
	w.failed = false;
	(void)sl_buf_reserve(b, hint < w.limit ? hint : w.limit + 4096);
	sl_buf_add(b, &magic, sizeof magic);
	/* a version without changes (a no-data batch that evicted nothing)
	 * has an empty delta: the store's delta is then the last commit's,
	 * which would replay as changes of this version in the change feed
	 * (driver/state_read.h) */
	if ((full || sl_state_num_updated(s) > 0 ||
	     sl_state_num_removed(s) > 0) &&
	    sl_state_write(s, full, &w.sk) != 0)
		w.failed = true; /* on b or prev */
	sl_buf_release(&w.sk.prev);
	if (w.z.len > 0 || w.failed || b->len >= w.limit) {
		flush_chunks(&w, true);
		sl_buf_release(b);
		*b = w.z;
		if (w.failed) { /* sticky: the caller sees it on b */
			sl_buf_release(b);
			b->oom = true;
		}
	}
	if (last != NULL && !sl_buf_failed(b))
		*last = b->len;
}

/* LZ4-compress the payload in b (Spark's default state store codec):
 * W4-200k's 4 MB delta becomes ~0.5 MB, and the fsync is what costs. */
static int compress_payload(sl_buf *b, sl_err *err)
{
	sl_buf z;
	uint32_t magic = MAGIC_LZ4;
	uint64_t raw = b->len;
	int bound, n;
	uint32_t head = 0;
	if (sl_buf_failed(b))
		return sl_err_nomem(err);
	if (b->len >= sizeof head)
		memcpy(&head, b->p, sizeof head);
	if (head == MAGIC_CHUNKED)
		return 0; /* compressed as it was built */
	if (b->len > (size_t)LZ4_MAX_INPUT_SIZE)
		return 0; /* stays plain: readers take both */
	bound = LZ4_compressBound((int)b->len);
	sl_buf_init(&z);
	sl_buf_add(&z, &magic, sizeof magic);
	sl_buf_add(&z, &raw, sizeof raw);
	if (!sl_buf_reserve(&z, (size_t)bound)) {
		sl_buf_release(&z);
		return sl_err_nomem(err);
	}
	n = LZ4_compress_fast(b->p, z.p + z.len, (int)b->len, bound, LZ4_ACCEL);
	if (n <= 0) { /* cannot happen with the bound; keep it plain */
		sl_buf_release(&z);
		return 0;
	}
	z.len += (size_t)n;
	z.p[z.len] = '\0';
	sl_buf_release(b);
	*b = z;
	return 0;
}

/* Compress (when compress), then append the trailer (length, CRC,
 * magic). */
int ckpt_put_trailer(sl_buf *b, bool compress, sl_err *err)
{
	uint64_t plen;
	uint32_t tail[2];
	int rc = compress ? compress_payload(b, err) : 0;
	if (rc < 0)
		return rc;
	plen = b->len;
	tail[0] = sl_buf_failed(b) ? 0 : sl_crc32(0, b->p, b->len);
	tail[1] = MAGIC_TAIL;
	sl_buf_add(b, &plen, sizeof plen);
	sl_buf_add(b, tail, sizeof tail);
	return sl_buf_failed(b) ? sl_err_nomem(err) : 0;
}

/* Append the trailer (compressed when durable: a temporary checkpoint's
 * snapshot stays bare) and write path atomically, now. */
static int finish_state_file(const char *path, sl_buf *b, bool durable,
			     sl_crash *crash, const char *point, int64_t batch,
			     sl_err *err)
{
	int rc = ckpt_put_trailer(b, durable, err);
	/* a re-run batch rewrites the same version with the same content */
	return rc < 0 ? rc
		      : sl_fs_write(path, b->p, b->len, true, durable, crash,
				    point, batch, err);
}

static void *snap_main(void *ud)
{
	struct snapjob *j = ud;
	sl_err e;
	/* a failed snapshot leaves nothing behind (the temp is removed):
	 * recovery uses the older snapshot plus the deltas */
	(void)finish_state_file(j->path, &j->b, j->durable, NULL, NULL,
				j->version, &e);
	sl_buf_release(&j->b);
	return NULL;
}

/* Join (and forget) the snapshots in flight of versions <= upto, or of
 * version `same` for operator op. */
void ckpt_snap_join(sl_ckpt *c, int64_t upto, int op, int64_t same)
{
	struct snapjob **pp = &c->jobs, *j;
	while ((j = *pp) != NULL) {
		if (j->version <= upto || (j->op == op && j->version == same)) {
			(void)pthread_join(j->thr, NULL);
			*pp = j->next;
			free(j);
		} else {
			pp = &j->next;
		}
	}
}

/* Serialize the full state now (the store changes with the next batch)
 * and write it on a helper thread, off the batch's critical path. */
static int save_snapshot(sl_ckpt *c, const char *dir, int op, sl_state *s,
			 int64_t version, sl_err *err)
{
	struct snapjob *j;
	/* one snapshot at a time per operator: the previous one is done */
	ckpt_snap_join(c, version - 1, op, version);
	j = calloc(1, sizeof *j);
	if (j == NULL)
		return sl_err_nomem(err);
	sl_buf_init(&j->b);
	j->op = op;
	j->version = version;
	j->durable = c->durable;
	snprintf(j->path, sizeof j->path, "%s/%lld.snapshot", dir,
		 (long long)version);
	state_payload(&j->b, s, true, !j->durable,
		      op >= 0 && op < 64 ? &c->payload_len[op][1] : NULL);
	if (pthread_create(&j->thr, NULL, snap_main, j) != 0) {
		int rc = finish_state_file(j->path, &j->b, j->durable, NULL,
					   NULL, version, err);
		sl_buf_release(&j->b);
		free(j);
		return rc;
	}
	j->next = c->jobs;
	c->jobs = j;
	return 0;
}

int sl_ckpt_state_save(sl_ckpt *c, int op, sl_state *s, int64_t version,
		       bool snapshot, sl_crash *crash, int64_t batch,
		       sl_err *err)
{
	char dir[4200], p[4400];
	sl_buf b;
	int rc;
	snprintf(dir, sizeof dir, "%s/state/%d/0", c->dir, op);
	if (op < 0 || op >= 64 || !(c->state_made >> op & 1)) {
		if ((rc = sl_fs_mkdirs(dir, err)) < 0)
			return rc;
		if (op >= 0 && op < 64)
			c->state_made |= UINT64_C(1) << op;
	}
	snprintf(p, sizeof p, "%s/%lld.delta", dir, (long long)version);
	sl_buf_init(&b);
	state_payload(&b, s, false, false,
		      op >= 0 && op < 64 ? &c->payload_len[op][0] : NULL);
	/* a re-run batch rewrites the same version (overwrite) */
	rc =
	    ckpt_put_file(c, p, &b, true, true, crash, "mid-state", batch, err);
	if (rc < 0)
		return rc;
	/* the snapshot holds the pending version's full content; it is a
	 * redundant copy, so the commit does not wait for it */
	return snapshot ? save_snapshot(c, dir, op, s, version, err) : 0;
}

/* Calls fn(ud, key, klen, val, vlen) for each whole record of data[*pos,
 * len) (val NULL for a remove) and moves *pos past it, until fn returns
 * nonzero (kept in *rc; true) or a record is not whole (left at *pos:
 * the next chunk's bytes complete it, or the payload is torn). */
static bool walk_some(const char *data, size_t len, size_t *pos, sl_state_fn fn,
		      void *ud, int *rc)
{
	size_t at = *pos;
	while (len - at >= 2 * sizeof(uint32_t)) {
		uint32_t hdr[2];
		size_t vl;
		memcpy(hdr, data + at, sizeof hdr);
		vl = hdr[1] == UINT32_MAX ? 0 : hdr[1];
		if (len - at - sizeof hdr < hdr[0] ||
		    len - at - sizeof hdr - hdr[0] < vl)
			break;
		*rc = fn(ud, data + at + sizeof hdr, hdr[0],
			 hdr[1] == UINT32_MAX ? NULL
					      : data + at + sizeof hdr + hdr[0],
			 vl);
		at += sizeof hdr + hdr[0] + vl;
		if (*rc != 0) {
			*pos = at;
			return true;
		}
	}
	*pos = at;
	return false;
}

static bool get_uvar(const char *data, size_t len, size_t *at, uint64_t *v)
{
	uint64_t x = 0;
	int sh;
	for (sh = 0; sh < 64 && *at < len; sh += 7) {
		unsigned char c = (unsigned char)data[(*at)++];
		x |= (uint64_t)(c & 0x7f) << sh;
		if (!(c & 0x80)) {
			*v = x;
			return true;
		}
	}
	return false;
}

/* As walk_some for front-coded records (the last key in key, carried
 * from call to call): fn for each whole record of data[*pos, len), *pos
 * moved past it, until fn returns nonzero (kept in *rc; returns 1) or a
 * record is not whole (left at *pos; returns 0); -1 when a record is
 * malformed or out of memory. */
static int walk_front_some(const char *data, size_t len, size_t *pos,
			   sl_buf *key, sl_state_fn fn, void *ud, int *rc)
{
	size_t at = *pos;
	int out = 0;
	while (at < len) {
		uint64_t sh, rest, v;
		size_t p = at, k;
		if (!get_uvar(data, len, &p, &sh) ||
		    !get_uvar(data, len, &p, &rest))
			break;
		if (sh > key->len || rest > UINT32_MAX - sh) {
			out = -1;
			break;
		}
		if (rest > len - p)
			break;
		k = p;
		p += (size_t)rest;
		if (!get_uvar(data, len, &p, &v))
			break;
		if (v > (uint64_t)UINT32_MAX + 1) {
			out = -1;
			break;
		}
		if (v > 0 && v - 1 > len - p)
			break;
		key->len = (size_t)sh;
		sl_buf_add(key, data + k, (size_t)rest);
		if (sl_buf_failed(key)) {
			out = -1;
			break;
		}
		*rc = fn(ud, key->p, key->len, v == 0 ? NULL : data + p,
			 v == 0 ? 0 : (size_t)v - 1);
		at = p + (v == 0 ? 0 : (size_t)v - 1);
		if (*rc != 0) {
			out = 1;
			break;
		}
	}
	*pos = at;
	return out;
}

/* The records of a front-coded payload after its head magic through fn,
 * until fn returns nonzero (kept in *rc); false when they do not parse. */
static bool walk_front(const char *data, size_t len, sl_state_fn fn, void *ud,
		       int *rc)
{
	sl_buf key;
	size_t at = sizeof(uint32_t);
	int got;
	sl_buf_init(&key);
	got = walk_front_some(data, len, &at, &key, fn, ud, rc);
	sl_buf_release(&key);
	return got == 1 || (got == 0 && at == len);
}

/* The records of a plain or front-coded payload (head magic, then
 * records) through fn, until fn returns nonzero (kept in *rc); false
 * when they do not parse. */
static bool walk_records(const char *data, size_t plen, sl_state_fn fn,
			 void *ud, int *rc)
{
	size_t pos = sizeof(uint32_t);
	uint32_t head;
	*rc = 0;
	if (plen < sizeof head)
		return false;
	memcpy(&head, data, sizeof head);
	if (head == MAGIC_FRONT)
		return walk_front(data, plen, fn, ud, rc);
	if (head != MAGIC_HEAD)
		return false;
	return walk_some(data, plen, &pos, fn, ud, rc) || pos == plen;
}

/* The records of an "SLSC" payload through fn, a block at a time: one
 * block's raw bytes (and a record they cut) are all it holds; false when
 * a block does not inflate or the records do not parse. */
static bool walk_chunked(const char *data, size_t plen, sl_state_fn fn,
			 void *ud, int *rc)
{
	sl_buf acc, key;
	size_t pos = sizeof(uint32_t), at = 0;
	uint32_t hdr[2], head = 0;
	bool begun = false, stop = false, ok = false;
	*rc = 0;
	sl_buf_init(&acc);
	sl_buf_init(&key);
	while (pos < plen && !stop) {
		if (plen - pos < sizeof hdr)
			goto out;
		memcpy(hdr, data + pos, sizeof hdr);
		pos += sizeof hdr;
		if (hdr[0] == 0 || hdr[0] > CHUNK_MAX || hdr[1] > plen - pos ||
		    hdr[1] > (uint32_t)INT32_MAX ||
		    !sl_buf_reserve(&acc, hdr[0]))
			goto out;
		if (LZ4_decompress_safe(data + pos, acc.p + acc.len,
					(int)hdr[1],
					(int)hdr[0]) != (int)hdr[0])
			goto out;
		pos += hdr[1];
		acc.len += hdr[0];
		at = 0;
		if (!begun) {
			if (acc.len < sizeof head)
				continue;
			memcpy(&head, acc.p, sizeof head);
			if (head != MAGIC_HEAD && head != MAGIC_FRONT)
				goto out;
			at = sizeof head;
			begun = true;
		}
		if (head == MAGIC_FRONT) {
			int got = walk_front_some(acc.p, acc.len, &at, &key, fn,
						  ud, rc);
			if (got < 0)
				goto out;
			stop = got == 1;
		} else {
			stop = walk_some(acc.p, acc.len, &at, fn, ud, rc);
		}
		memmove(acc.p, acc.p + at, acc.len - at);
		acc.len -= at;
	}
	ok = stop || (begun && acc.len == 0);
out:
	sl_buf_release(&acc);
	sl_buf_release(&key);
	return ok;
}

struct applyctx {
	sl_state *s;
	sl_err *err;
};

static int apply_rec(void *ud, const void *k, size_t kl, const void *v,
		     size_t vl)
{
	struct applyctx *a = ud;
	if (v == NULL) {
		sl_state_remove(a->s, k, kl);
		return 0;
	}
	return sl_state_put(a->s, k, kl, v, vl, a->err);
}

/* An LZ4 payload back to the plain one (malloc'd), or NULL. */
static char *inflate_payload(const char *data, size_t plen, size_t *rawlen)
{
	uint64_t raw;
	char *out;
	if (plen < 12)
		return NULL;
	memcpy(&raw, data + 4, sizeof raw);
	if (raw == 0 || raw > (uint64_t)LZ4_MAX_INPUT_SIZE ||
	    plen - 12 > (size_t)INT32_MAX || (out = malloc(raw)) == NULL)
		return NULL;
	if (LZ4_decompress_safe(data + 12, out, (int)(plen - 12), (int)raw) !=
	    (int)raw) {
		free(out);
		return NULL;
	}
	*rawlen = raw;
	return out;
}

/* The records of the state file at path through fn (walk_records); a
 * missing file sets *missing (may be NULL). */
static int walk_file(const char *path, sl_state_fn fn, void *ud, bool *missing,
		     sl_err *err)
{
	char *data, *raw = NULL;
	size_t len, rawlen = 0;
	uint64_t plen;
	uint32_t head, tail[2];
	int rc;
	bool ok, enoent = false;
	if ((rc = sl_fs_read(path, &data, &len, &enoent, err)) < 0) {
		if (missing != NULL)
			*missing = enoent;
		return sl_err_set(err, SL_ECHECKPOINT,
				  "state file '%s' is missing or unreadable",
				  path);
	}
	if (len < sizeof head + TRAILER)
		goto torn;
	memcpy(&head, data, sizeof head);
	memcpy(&plen, data + len - TRAILER, sizeof plen);
	memcpy(tail, data + len - TRAILER + 8, sizeof tail);
	if ((head != MAGIC_HEAD && head != MAGIC_LZ4 &&
	     head != MAGIC_CHUNKED && head != MAGIC_FRONT) ||
	    tail[1] != MAGIC_TAIL || plen != len - TRAILER ||
	    sl_crc32(0, data, plen) != tail[0])
		goto torn;
	if (head == MAGIC_LZ4 &&
	    (raw = inflate_payload(data, plen, &rawlen)) == NULL)
		goto torn;
	if (head == MAGIC_CHUNKED)
		ok = walk_chunked(data, plen, fn, ud, &rc);
	else if (raw != NULL)
		ok = walk_records(raw, rawlen, fn, ud, &rc);
	else
		ok = walk_records(data, plen, fn, ud, &rc);
	free(raw);
	if (!ok)
		goto torn;
	free(data);
	return rc;
torn:
	free(data);
	return sl_err_set(
	    err, SL_ECHECKPOINT,
	    "state file '%s' is corrupt (length or checksum mismatch)", path);
}

static int apply_file(const char *path, sl_state *s, sl_err *err)
{
	struct applyctx a;
	a.s = s;
	a.err = err;
	return walk_file(path, apply_rec, &a, NULL, err);
}

int sl_ckpt_state_delta(sl_ckpt *c, int op, int64_t version, sl_state_fn fn,
			void *ud, bool *missing, sl_err *err)
{
	char p[4400];
	snprintf(p, sizeof p, "%s/state/%d/0/%lld.delta", c->dir, op,
		 (long long)version);
	if (missing != NULL)
		*missing = false;
	ckpt_snap_join(c, INT64_MAX, -1, -1);
	return walk_file(p, fn, ud, missing, err);
}

int sl_ckpt_state_load(sl_ckpt *c, int op, int64_t version, sl_state *s,
		       int64_t *base, sl_err *err)
{
	char dir[4200], p[4400];
	int64_t *snaps = NULL, from = 0, v;
	int n = 0, i, rc;
	snprintf(dir, sizeof dir, "%s/state/%d/0", c->dir, op);
	ckpt_snap_join(c, INT64_MAX, -1, -1);
	sl_state_reset(s, 0);
	if (base != NULL)
		*base = 0;
	if (version <= 0)
		return 0;
	if ((rc = sl_fs_list_ids(dir, ".snapshot", &snaps, &n, err)) < 0)
		return rc;
	/* newest readable snapshot <= version; an unreadable one falls back
	 * to an older snapshot plus deltas (the redundancy Spark relies on) */
	for (i = n - 1; i >= 0; i--) {
		if (snaps[i] > version)
			continue;
		snprintf(p, sizeof p, "%s/%lld.snapshot", dir,
			 (long long)snaps[i]);
		sl_state_reset(s, 0);
		if (apply_file(p, s, NULL) == 0) {
			from = snaps[i];
			break;
		}
	}
	free(snaps);
	if (from == 0)
		sl_state_reset(s, 0);
	if (base != NULL)
		*base = from;
	for (v = from + 1; v <= version; v++) {
		snprintf(p, sizeof p, "%s/%lld.delta", dir, (long long)v);
		if ((rc = apply_file(p, s, err)) < 0) {
			sl_state_reset(s, 0);
			return rc;
		}
	}
	sl_state_set_version(s, version);
	return 0;
}
