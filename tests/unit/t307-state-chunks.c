/*
 * t307-state-chunks: state files in LZ4 chunks ("SLSC", ckpt_state.c).
 * A snapshot is written as 1 MiB blocks and a delta past 16 MiB too;
 * they load back whole, records cut by a block boundary included; a
 * reader walking a delta can stop early; a torn file and a flipped byte
 * are refused by the CRC, damaged blocks behind a matching CRC by the
 * inflate; hand-made files in every format (plain, "SLSZ", "SLSC" with
 * blocks of a few bytes) still load.  Records are front-coded ("SLSF"
 * inside the LZ4; a temporary checkpoint's deltas bare) and load back
 * exactly (removes, long keys and values, keys sharing any prefix); a
 * torn one behind a matching CRC is refused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lz4.h>

#include "core/buf.h"
#include "core/fsutil.h"
#include "state/ckpt.h"
#include "state/state.h"
#include "tap.h"

#define HEAD    0x44534c53u /* "SLSD" */
#define TAIL    0x45534c53u /* "SLSE" */
#define LZ4ONE  0x5a534c53u /* "SLSZ" */
#define CHUNKED 0x43534c53u /* "SLSC" */
#define FRONT   0x46534c53u /* "SLSF" */
#define MIB     ((size_t)1 << 20)

static char tmpl[] = "/tmp/t307-XXXXXX";
static const char *dir;

/* key i and its value: 8 + 11 + 189 = 208 bytes a record, so 1 MiB
 * blocks cut records (1 MiB - 4 is no multiple of 208) */
static void kv(int i, char *k, char *v, int salt)
{
	int j;
	snprintf(k, 12, "k%010d", i);
	for (j = 0; j < 189; j++)
		v[j] = (char)('a' + (i * 31 + j * 7 + salt) % 26);
}

static sl_state *fill(int n, int salt)
{
	sl_state *s = sl_state_new();
	char k[12], v[189];
	sl_err err;
	int i;
	for (i = 0; i < n; i++) {
		kv(i, k, v, salt);
		if (sl_state_put(s, k, 11, v, sizeof v, &err) < 0)
			break;
	}
	return s;
}

/* s holds exactly keys 0..n-1 with kv(salt)'s values */
static int same(sl_state *s, int n, int salt)
{
	char k[12], v[189];
	const void *got;
	size_t vl;
	int i;
	if (sl_state_num_rows(s) != n)
		return 0;
	for (i = 0; i < n; i++) {
		kv(i, k, v, salt);
		got = sl_state_get(s, k, 11, &vl);
		if (got == NULL || vl != sizeof v || memcmp(got, v, vl) != 0)
			return 0;
	}
	return 1;
}

static char *path(const char *name)
{
	static char p[4400];
	snprintf(p, sizeof p, "%s/state/0/0/%s", dir, name);
	return p;
}

/* The raw bytes of an SLSC payload (blocks inflated in order) into raw;
 * *nblocks, and *full: every block but the last held exactly 1 MiB. */
static int inflate_all(const char *d, size_t len, sl_buf *raw, int *nblocks,
		       int *full)
{
	size_t pos = 4, plen = len - 16;
	uint32_t hdr[2], last = 0;
	*nblocks = 0;
	*full = 1;
	while (pos + 8 <= plen) {
		memcpy(hdr, d + pos, 8);
		pos += 8;
		if (*nblocks > 0 && last != MIB)
			*full = 0;
		if (!sl_buf_reserve(raw, hdr[0]) ||
		    LZ4_decompress_safe(d + pos, raw->p + raw->len, (int)hdr[1],
					(int)hdr[0]) != (int)hdr[0])
			return -1;
		raw->len += hdr[0];
		pos += hdr[1];
		last = hdr[0];
		(*nblocks)++;
	}
	return pos == plen ? 0 : -1;
}

static uint64_t uvar(const sl_buf *raw, size_t *pos)
{
	uint64_t x = 0;
	int sh = 0;
	while (*pos < raw->len) {
		unsigned char c = (unsigned char)raw->p[(*pos)++];
		x |= (uint64_t)(c & 0x7f) << sh;
		if (!(c & 0x80))
			break;
		sh += 7;
	}
	return x;
}

/* Does a record of the front-coded payload raw span byte offset at?
 * *n: its records. */
static int record_spans(const sl_buf *raw, size_t at, int *n)
{
	size_t pos = 4;
	int spans = 0;
	*n = 0;
	while (pos < raw->len) {
		size_t start = pos, v;
		(void)uvar(raw, &pos);
		pos += uvar(raw, &pos);
		v = uvar(raw, &pos);
		pos += v > 0 ? v - 1 : 0;
		spans |= start < at && at < pos;
		(*n)++;
	}
	return spans;
}

static void test_snapshot(void)
{
	sl_state *s = fill(20000, 1), *back = sl_state_new();
	sl_ckpt *c = sl_ckpt_open(dir, NULL);
	sl_buf raw;
	sl_err err;
	char *data;
	size_t len;
	uint32_t head = 0;
	int nb = 0, full = 0;
	is_int(sl_ckpt_state_save(c, 0, s, 1, true, NULL, 0, &err), 0,
	       "version 1 with its snapshot (4 MB of records)");
	/* a load joins the snapshot's thread; drop the delta so the
	 * snapshot is what loads */
	is_int(sl_ckpt_state_load(c, 0, 1, back, NULL, &err), 0, "load joins it");
	is_int(unlink(path("1.delta")), 0, "remove 1.delta");
	is_int(sl_fs_read(path("1.snapshot"), &data, &len, NULL, &err), 0,
	       "read 1.snapshot");
	memcpy(&head, data, 4);
	ok(head == CHUNKED, "it starts with the chunked magic SLSC");
	sl_buf_init(&raw);
	is_int(inflate_all(data, len, &raw, &nb, &full), 0,
	       "its blocks inflate and fill the payload to its trailer");
	ok(nb == 4 && full, "4 blocks, all but the last of 1 MiB (%d)", nb);
	head = 0;
	memcpy(&head, raw.p, 4);
	ok(head == FRONT && raw.len < 4 + 20000 * 208,
	   "the payload is front-coded: %zu bytes, plain %d", raw.len,
	   4 + 20000 * 208);
	ok(record_spans(&raw, MIB, &nb) && record_spans(&raw, 2 * MIB, &nb),
	   "a record is cut by each block boundary");
	is_int(nb, 20000, "its records");
	sl_buf_release(&raw);
	free(data);
	sl_state_reset(back, 0);
	is_int(sl_ckpt_state_load(c, 0, 1, back, NULL, &err), 0,
	       "version 1 loads from the snapshot alone");
	ok(same(back, 20000, 1), "every key with its value");
	sl_ckpt_close(c);
	sl_state_free(s);
	sl_state_free(back);
}

struct count {
	int n, stop_at;
};

static int count_rec(void *ud, const void *k, size_t kl, const void *v,
		     size_t vl)
{
	struct count *c = ud;
	(void)k;
	(void)kl;
	(void)v;
	(void)vl;
	return ++c->n == c->stop_at ? 7 : 0;
}

/* Rewrite path with byte i flipped; fix_crc: recompute the CRC so only
 * the payload's own checks can refuse it. */
static void flip(const char *p, size_t i, int fix_crc)
{
	char *d;
	size_t len;
	uint64_t plen;
	uint32_t crc;
	if (sl_fs_read(p, &d, &len, NULL, NULL) < 0)
		return;
	d[i] ^= 0x5a;
	if (fix_crc) {
		memcpy(&plen, d + len - 16, 8);
		crc = sl_crc32(0, d, plen);
		memcpy(d + len - 8, &crc, 4);
	}
	(void)sl_fs_write_atomic(p, d, len, true, NULL, NULL, -1, NULL);
	free(d);
}

static void test_big_delta(void)
{
	/* 90 000 x 208 B = 18.7 MB: past the 16 MiB a delta chunks from */
	sl_state *s = fill(90000, 2), *back = sl_state_new();
	sl_ckpt *c = sl_ckpt_open(dir, NULL);
	struct count n = { 0, 0 };
	char *data, cmd[4500];
	size_t len;
	uint32_t head = 0;
	sl_err err;
	is_int(sl_ckpt_state_save(c, 0, s, 2, false, NULL, 1, &err), 0,
	       "version 2: a delta of 90 000 puts");
	is_int(sl_fs_read(path("2.delta"), &data, &len, NULL, &err), 0,
	       "read 2.delta");
	memcpy(&head, data, 4);
	ok(head == CHUNKED, "a big delta is chunked too");
	free(data);
	is_int(sl_ckpt_state_delta(c, 0, 2, count_rec, &n, NULL, &err), 0,
	       "its records walk");
	is_int(n.n, 90000, "all of them, in order across the blocks");
	n.n = 0;
	n.stop_at = 50000;
	is_int(sl_ckpt_state_delta(c, 0, 2, count_rec, &n, NULL, &err), 7,
	       "a walk stops at fn's nonzero return, which it returns");
	is_int(n.n, 50000, "there and no further");
	/* version 1's snapshot (20 000 keys) under it: 90 000 keys back */
	is_int(sl_ckpt_state_load(c, 0, 2, back, NULL, &err), 0,
	       "version 2 loads: snapshot 1, then delta 2");
	ok(same(back, 90000, 2), "every key with the delta's value");

	/* torn: the first half of the file */
	snprintf(cmd, sizeof cmd, "cp '%s' '%s.good' && truncate -s %zu '%s'",
		 path("2.delta"), path("2.delta"), len / 2, path("2.delta"));
	is_int(system(cmd), 0, "tear 2.delta in half");
	sl_err_clear(&err);
	is_int(sl_ckpt_state_delta(c, 0, 2, count_rec, &n, NULL, &err),
	       SL_ECHECKPOINT, "a torn chunked delta is refused");
	ok(strstr(err.msg, "2.delta' is corrupt") != NULL, "naming it: %s",
	   err.msg);
	sl_err_clear(&err);
	is_int(sl_ckpt_state_load(c, 0, 2, back, NULL, &err), SL_ECHECKPOINT,
	       "and the load of version 2 fails");
	is_int(sl_state_num_rows(back), 0, "leaving the store empty");

	/* a flipped byte in the third block, CRC as written */
	snprintf(cmd, sizeof cmd, "cp '%s.good' '%s'", path("2.delta"),
		 path("2.delta"));
	is_int(system(cmd), 0, "restore 2.delta");
	flip(path("2.delta"), len / 2, 0);
	sl_err_clear(&err);
	is_int(sl_ckpt_state_delta(c, 0, 2, count_rec, &n, NULL, &err),
	       SL_ECHECKPOINT, "a flipped byte is refused (CRC)");
	/* the same byte with the CRC made to match: the inflate refuses */
	is_int(system(cmd), 0, "restore 2.delta");
	flip(path("2.delta"), 9, 1);
	sl_err_clear(&err);
	is_int(sl_ckpt_state_delta(c, 0, 2, count_rec, &n, NULL, &err),
	       SL_ECHECKPOINT,
	       "a damaged block header behind a matching CRC is refused");
	ok(strstr(err.msg, "is corrupt") != NULL, "as corrupt: %s", err.msg);
	sl_ckpt_close(c);
	sl_state_free(s);
	sl_state_free(back);
}

/* The plain payload of records i in [from, to) with kv(salt). */
static void plain(sl_buf *b, int from, int to, int salt)
{
	uint32_t h = HEAD, hdr[2] = { 11, 189 };
	char k[12], v[189];
	int i;
	sl_buf_add(b, &h, 4);
	for (i = from; i < to; i++) {
		kv(i, k, v, salt);
		sl_buf_add(b, hdr, 8);
		sl_buf_add(b, k, 11);
		sl_buf_add(b, v, 189);
	}
}

/* Write payload p as file name with its trailer. */
static void put(const char *name, const sl_buf *p)
{
	sl_buf f;
	uint64_t plen = p->len;
	uint32_t tail[2];
	sl_buf_init(&f);
	sl_buf_add(&f, p->p, p->len);
	tail[0] = sl_crc32(0, p->p, p->len);
	tail[1] = TAIL;
	sl_buf_add(&f, &plen, 8);
	sl_buf_add(&f, tail, 8);
	(void)sl_fs_write_atomic(path(name), f.p, f.len, true, NULL, NULL, -1,
				 NULL);
	sl_buf_release(&f);
}

/* One LZ4 block of raw[off, off + n) as an SLSC block into z. */
static void block(sl_buf *z, const sl_buf *raw, size_t off, size_t n)
{
	int bound = LZ4_compressBound((int)n), got;
	uint32_t hdr[2];
	(void)sl_buf_reserve(z, 8 + (size_t)bound);
	got = LZ4_compress_default(raw->p + off, z->p + z->len + 8, (int)n,
				   bound);
	hdr[0] = (uint32_t)n;
	hdr[1] = (uint32_t)got;
	memcpy(z->p + z->len, hdr, 8);
	z->len += 8 + (size_t)got;
}

static void test_old_formats(void)
{
	sl_buf raw, z;
	sl_state *back = sl_state_new();
	sl_ckpt *c;
	sl_err err;
	uint32_t m;
	uint64_t rl;
	char cmd[4500];
	snprintf(cmd, sizeof cmd, "rm -rf '%s/state'", dir);
	if (system(cmd) != 0 || sl_fs_mkdirs(path(""), NULL) < 0) {
		ok(0, "setup");
		return;
	}
	/* 1.snapshot plain (keys 0..99), 2.delta SLSZ (keys 100..199),
	 * 3.delta SLSC cut at bytes 3, 8 and 1000 (keys 200..299) */
	sl_buf_init(&raw);
	plain(&raw, 0, 100, 3);
	put("1.snapshot", &raw);
	sl_buf_release(&raw);

	sl_buf_init(&raw);
	plain(&raw, 100, 200, 3);
	sl_buf_init(&z);
	m = LZ4ONE;
	rl = raw.len;
	sl_buf_add(&z, &m, 4);
	sl_buf_add(&z, &rl, 8);
	(void)sl_buf_reserve(&z, (size_t)LZ4_compressBound((int)raw.len));
	z.len += (size_t)LZ4_compress_default(raw.p, z.p + z.len, (int)raw.len,
					      LZ4_compressBound((int)raw.len));
	put("2.delta", &z);
	sl_buf_release(&z);
	sl_buf_release(&raw);

	sl_buf_init(&raw);
	plain(&raw, 200, 300, 3);
	sl_buf_init(&z);
	m = CHUNKED;
	sl_buf_add(&z, &m, 4);
	block(&z, &raw, 0, 3); /* part of the head magic */
	block(&z, &raw, 3, 5); /* its last byte, half a record's header */
	block(&z, &raw, 8, 992);
	block(&z, &raw, 1000, raw.len - 1000);
	put("3.delta", &z);
	sl_buf_release(&z);
	sl_buf_release(&raw);

	c = sl_ckpt_open(dir, NULL);
	is_int(sl_ckpt_state_load(c, 0, 1, back, NULL, &err), 0,
	       "a plain snapshot loads");
	ok(same(back, 100, 3), "its 100 keys");
	is_int(sl_ckpt_state_load(c, 0, 2, back, NULL, &err), 0,
	       "plus an SLSZ delta");
	ok(same(back, 200, 3), "200 keys");
	is_int(sl_ckpt_state_load(c, 0, 3, back, NULL, &err), 0,
	       "plus an SLSC delta of blocks cut mid-magic and mid-record");
	ok(same(back, 300, 3), "300 keys");
	sl_ckpt_close(c);
	sl_state_free(back);
}

/* Key i of the front-coding test: short keys sharing prefixes, some
 * long ones (300 bytes: multi-byte lengths) sharing 250, the odd one a
 * prefix of the next. */
static size_t fkey(int i, char *k)
{
	if (i % 97 == 5) {
		memset(k, 'L', 250);
		snprintf(k + 250, 51, "%050d", i);
		return 300;
	}
	if (i % 89 == 3)
		return (size_t)snprintf(k, 40, "p%d", i / 10);
	return (size_t)snprintf(k, 40, "p%d-%d", i / 10, i % 10);
}

static size_t fval(int i, int salt, char *v)
{
	size_t n = (size_t)((i * 7 + salt) % 5 == 0 ? 0 : (i + salt) % 200);
	size_t j;
	for (j = 0; j < n; j++)
		v[j] = (char)(i + salt + (int)j);
	return n;
}

struct cmpctx {
	sl_state *other;
	int bad, n;
};

static int cmp_rec(void *ud, const void *k, size_t kl, const void *v,
		   size_t vl)
{
	struct cmpctx *c = ud;
	size_t ol;
	const void *o = sl_state_get(c->other, k, kl, &ol);
	c->n++;
	if (o == NULL || ol != vl || (vl > 0 && memcmp(o, v, vl) != 0))
		c->bad++;
	return 0;
}

struct walkctx {
	int puts, removes;
};

static int walk_rec(void *ud, const void *k, size_t kl, const void *v,
		    size_t vl)
{
	struct walkctx *w = ud;
	(void)k;
	(void)kl;
	(void)vl;
	if (v == NULL)
		w->removes++;
	else
		w->puts++;
	return 0;
}

static void test_front(void)
{
	sl_state *s = sl_state_new(), *back = sl_state_new();
	sl_ckpt *c, *d;
	struct cmpctx cc = { NULL, 0, 0 };
	struct walkctx wk = { 0, 0 };
	char k[400], v[200], cmd[4500], *data;
	size_t len, kl, vl;
	uint64_t plen;
	uint32_t head = 0, crc;
	int64_t ver;
	int i, upd = 0, rem = 0;
	sl_err err;
	snprintf(cmd, sizeof cmd, "rm -rf '%s/state'", dir);
	if (system(cmd) != 0) {
		ok(0, "setup");
		return;
	}
	c = sl_ckpt_open(dir, NULL);
	sl_ckpt_set_durable(c, false);
	for (ver = 1; ver <= 3; ver++) {
		for (i = 0; i < 3000; i++) {
			kl = fkey(i, k);
			if (ver > 1 && i % 7 == (int)ver) {
				rem += ver == 2 && sl_state_remove(s, k, kl) == 1;
				continue;
			}
			if (ver > 1 && i % 3 != 0)
				continue;
			vl = fval(i, (int)ver, v);
			sl_state_put(s, k, kl, v, vl, &err);
			upd += ver == 2;
		}
		ok(sl_ckpt_state_save(c, 0, s, ver, false, NULL, ver - 1,
				      &err) == 0,
		   "temporary checkpoint: save version %lld",
		   (long long)ver);
		sl_state_commit(s, &err);
	}
	sl_ckpt_close(c); /* its writes done */
	c = sl_ckpt_open(dir, NULL);
	is_int(sl_fs_read(path("2.delta"), &data, &len, NULL, &err), 0,
	       "read 2.delta");
	memcpy(&head, data, 4);
	ok(head == FRONT, "a temporary checkpoint's delta is front-coded");
	is_int(sl_ckpt_state_delta(c, 0, 2, walk_rec, &wk, NULL, &err), 0,
	       "its records walk");
	ok(wk.puts == upd && wk.removes == rem,
	   "every put (%d of %d) and remove (%d of %d) of version 2",
	   wk.puts, upd, wk.removes, rem);
	is_int(sl_ckpt_state_load(c, 0, 3, back, NULL, &err), 0,
	       "version 3 loads from three front-coded deltas");
	cc.other = back;
	sl_state_foreach(s, cmp_rec, &cc);
	ok(cc.bad == 0 && cc.n > 0 &&
		   sl_state_num_rows(back) == sl_state_num_rows(s),
	   "the same %d records", cc.n);
	/* torn behind a matching CRC: the last 3 bytes of the payload gone */
	memcpy(&plen, data + len - 16, 8);
	plen -= 3;
	memmove(data + plen, data + plen + 3, 16);
	memcpy(data + plen, &plen, 8);
	crc = sl_crc32(0, data, plen);
	memcpy(data + plen + 8, &crc, 4);
	(void)sl_fs_write_atomic(path("2.delta"), data, plen + 16, true, NULL,
				 NULL, -1, NULL);
	free(data);
	sl_err_clear(&err);
	is_int(sl_ckpt_state_load(c, 0, 3, back, NULL, &err), SL_ECHECKPOINT,
	       "a torn front-coded delta behind a matching CRC is refused");
	ok(strstr(err.msg, "2.delta' is corrupt") != NULL, "naming it: %s",
	   err.msg);
	sl_ckpt_close(c);
	/* a durable checkpoint's deltas are bare front-coded records too */
	d = sl_ckpt_open(dir, NULL);
	ok(sl_ckpt_state_save(d, 0, s, 4, false, NULL, 3, &err) == 0,
	   "durable: save version 4");
	sl_ckpt_close(d);
	head = 0;
	if (sl_fs_read(path("4.delta"), &data, &len, NULL, &err) == 0) {
		memcpy(&head, data, 4);
		free(data);
	}
	ok(head == FRONT,
	   "a durable checkpoint's delta is bare front-coded records");
	sl_state_commit(s, &err);
	/* a temporary checkpoint's snapshot: bare front-coded records too
	 * (no chunks, no LZ4), and the version loads from it alone */
	d = sl_ckpt_open(dir, NULL);
	sl_ckpt_set_durable(d, false);
	ok(sl_ckpt_state_save(d, 0, s, 5, true, NULL, 4, &err) == 0,
	   "temporary checkpoint: save version 5 with its snapshot");
	sl_state_commit(s, &err);
	sl_ckpt_close(d); /* joins the snapshot's thread */
	head = 0;
	if (sl_fs_read(path("5.snapshot"), &data, &len, NULL, &err) == 0) {
		memcpy(&head, data, 4);
		free(data);
	}
	ok(head == FRONT, "a temporary checkpoint's snapshot is front-coded");
	for (i = 1; i <= 5; i++) {
		char dn[32];
		snprintf(dn, sizeof dn, "%d.delta", i);
		(void)unlink(path(dn));
	}
	d = sl_ckpt_open(dir, NULL);
	is_int(sl_ckpt_state_load(d, 0, 5, back, NULL, &err), 0,
	       "version 5 loads from the front-coded snapshot alone");
	cc.other = back;
	cc.bad = 0;
	cc.n = 0;
	sl_state_foreach(s, cmp_rec, &cc);
	ok(cc.bad == 0 && cc.n > 0 &&
		   sl_state_num_rows(back) == sl_state_num_rows(s),
	   "the same %d records", cc.n);
	sl_ckpt_close(d);
	sl_state_free(s);
	sl_state_free(back);
}

int main(void)
{
	char cmd[4500];
	dir = mkdtemp(tmpl);
	if (dir == NULL) {
		ok(0, "mkdtemp");
		return done_testing();
	}
	test_snapshot();
	test_big_delta();
	test_old_formats();
	test_front();
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		ok(0, "cleanup");
	return done_testing();
}
