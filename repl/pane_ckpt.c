/*
 * pane_ckpt: the batch protocol as a timeline (LESSONS.md 5 V4), one
 * flowing line per batch (pane_flow.c), in the order the batch writes its
 * checkpoint: the batch id, the offsets read per source in a readable
 * form ("mem 0->2", "file 3->4", "kafka t/0 3->5 t/1 0->2"), the
 * watermark the batch used, the state version it wrote, what the sink did
 * (rows, skipped), and whether it committed, or CRASH with the point where
 * the query died; then the engine's crash and replay lines ("re-ran batch
 * 5 with offsets/5", "sink batch 5 already committed: skipped"); and the
 * sink check: for the batch ids seen, the rows expected (each committed
 * batch once), the rows the sink got, duplicates (rows of a batch written
 * more than once) and missing (a committed batch never written).  All from
 * the feed.
 *
 * When every line fits on one row the columns line up under a header;
 * when the pane is narrow a line wraps between its fields, never inside
 * one, and the newest batches are the ones shown.
 */
#include <stdio.h>
#include <string.h>

#include "pane.h"

#define SEGS (MODEL_MAX_SRC * MODEL_MAX_LANES + 8)

/* The sink check line, drawn from row y (draw) or measured; its rows. */
static int sink_check(ui_rect in, int y, const model_query *q, bool draw)
{
	int64_t expected = 0, got = 0, dup = 0, missing = 0;
	char a[40], b[40], c[40], d[40];
	pane_seg seg[5];
	int attr;

	/* per batch id, over its runs (a crashed run and its re-run are
	 * two timeline entries): the committed run's rows once expected,
	 * every write counted */
	for (int i = 0; i < q->nbatches; i++) {
		const model_batch *bt = sl_model_batch(q, i);
		int64_t rows = 0;
		int writes = 0;
		bool later = false;
		if (!bt->committed)
			continue;
		for (int k = 0; k < q->nbatches; k++) {
			const model_batch *o = sl_model_batch(q, k);
			if (o->id != bt->id)
				continue;
			later |= k > i && o->committed;
			rows += o->rows_written;
			writes += o->writes;
		}
		if (later)
			continue; /* counted at its last committed run */
		expected += bt->out_rows;
		got += rows;
		if (writes > 1)
			dup += rows - bt->out_rows;
		if (writes == 0 && bt->out_rows > 0)
			missing += bt->out_rows;
	}
	snprintf(a, sizeof a, "expected %lld rows,", (long long)expected);
	snprintf(b, sizeof b, "got %lld,", (long long)got);
	snprintf(c, sizeof c, "duplicates %lld,", (long long)dup);
	snprintf(d, sizeof d, "missing %lld", (long long)missing);
	attr = dup || missing ? UI_BAD : UI_GOOD;
	seg[0] = (pane_seg){ "sink check:", attr, 0 };
	seg[1] = (pane_seg){ a, attr, 0 };
	seg[2] = (pane_seg){ b, attr, 0 };
	seg[3] = (pane_seg){ c, attr, 0 };
	seg[4] = (pane_seg){ d, attr, 0 };
	return pane_flow(in, y, 2, seg, 5, draw, NULL);
}

/* Text for one batch's line, in buf (bn bytes); the segments into seg. */
typedef struct bline {
	pane_seg seg[SEGS];
	int n;
	char buf[1400];
} bline;

static void crash_point(const char *text, char *out, size_t n)
{
	const char *a = text ? strchr(text, '\'') : NULL;
	const char *b = a ? strchr(a + 1, '\'') : NULL;

	if (a && b)
		snprintf(out, n, "CRASH %.*s", (int)(b - a - 1), a + 1);
	else
		snprintf(out, n, "CRASH");
}

static void batch_line(const model_batch *b, bline *l, const int *pad)
{
	char *p = l->buf, *end = l->buf + sizeof l->buf;
	int n = 0;

#define ADD(attr, padw, ...)                                                   \
	do {                                                                   \
		snprintf(p, (size_t)(end - p), __VA_ARGS__);                   \
		l->seg[n++] = (pane_seg){ p, attr, padw };                     \
		p += strlen(p) + 1;                                            \
	} while (0)

	ADD(UI_BOLD, pad[0], "%*lld", pad[0], (long long)b->id);
	int ow = 0, lastseg = -1;
	for (int s = 0; s < b->nsrc && s < MODEL_MAX_SRC; s++) {
		const char *o = b->offsets[s] ? b->offsets[s] : "-";
		/* one segment per tab-separated item (Kafka partitions) */
		while (n < SEGS - 6 && p < end - 1) {
			size_t k = strcspn(o, "\t");
			ADD(UI_NORMAL, 0, "%.*s", (int)k, o);
			ow += (ow ? 1 : 0) + ui_width(o, (int)k);
			lastseg = n - 1;
			if (o[k] == '\0')
				break;
			o += k + 1;
		}
	}
	if (lastseg >= 0 && pad[1] > ow) /* line the columns up */
		l->seg[lastseg].pad =
		    ui_width(l->seg[lastseg].s, -1) + pad[1] - ow;
	if (b->nsrc == 0)
		ADD(UI_NORMAL, pad[1], "-");
	if (b->watermark == NULL) {
		/* no watermark in this query: nothing to say */
	} else if (b->wm_us > 0) {
		char t[32];
		sl_model_hms(b->wm_us, t, sizeof t);
		ADD(UI_WARN, 11, "wm %s", t);
	} else
		ADD(UI_DIM, 11, "wm -");
	if (b->state_version >= 0)
		ADD(UI_NORMAL, 3, "v%lld", (long long)b->state_version);
	if (b->sink == NULL)
		ADD(UI_DIM, 7, "sink -");
	else if (b->sink_skipped)
		ADD(UI_WARN, 0, "sink skipped");
	else
		ADD(UI_NORMAL, 7, "%lld rows", (long long)b->out_rows);
	if (b->crash) {
		char cp[80];
		crash_point(b->crash, cp, sizeof cp);
		ADD(UI_BAD, 0, "%s", cp);
	}
	if (b->committed)
		ADD(UI_GOOD, 0, "%s",
		    b->replayed ? "commit (re-run)" : "commit");
	else if (!b->crash)
		ADD(UI_DIM, 0, "running");
#undef ADD
	l->n = n;
}

void pane_ckpt(ui_rect r, model_query *q)
{
	static bline lines[64];
	ui_rect in = pane_inner(r);
	int pad[2] = { 1, 0 }, notes, first, y = in.y, avail, used = 0, nl;
	int sc;

	ui_box(r, "checkpoint");
	if (q == NULL || q->nbatches == 0) {
		pane_empty(in, NULL);
		return;
	}
	sc = sink_check(in, 0, q, false);
	notes = q->nnotes < 3 ? q->nnotes : 3;
	avail = in.h - sc - notes;
	nl = avail < 64 ? (avail > 0 ? avail : 0) : 64;
	first = q->nbatches > nl ? q->nbatches - nl : 0;
	/* column widths over the candidates: the id, the offsets */
	for (int i = first; i < q->nbatches; i++) {
		const model_batch *b = sl_model_batch(q, i);
		char id[24];
		int w = 0;
		snprintf(id, sizeof id, "%lld", (long long)b->id);
		if ((int)strlen(id) > pad[0])
			pad[0] = (int)strlen(id);
		for (int s = 0; s < b->nsrc && s < MODEL_MAX_SRC; s++)
			w += (b->offsets[s] ? ui_width(b->offsets[s], -1) : 1) +
			     (s ? 1 : 0); /* a tab counts as the space */
		if (w > pad[1])
			pad[1] = w;
	}
	/* newest first into the room there is, then drawn oldest first */
	int count = 0, rows[64];
	for (int i = q->nbatches - 1; i >= first && count < nl; i--) {
		bline *l = &lines[count];
		batch_line(sl_model_batch(q, i), l, pad);
		rows[count] =
		    pane_flow(in, 0, pad[0] + 1, l->seg, l->n, false, NULL);
		if (used + rows[count] + 1 > avail && count > 0)
			break;
		used += rows[count];
		count++;
	}
	bool table = used == count && used + 1 <= avail;
	static const char head[] =
	    "batch, offsets, watermark, state version, sink, commit";
	if (table && (int)sizeof head - 1 <= in.w)
		ui_put(y++, in.x, UI_DIM, head, in.w);
	for (int k = count - 1; k >= 0; k--)
		y += pane_flow(in, y, pad[0] + 1, lines[k].seg, lines[k].n,
			       true, NULL);
	for (int i = q->nnotes - notes; i < q->nnotes; i++) {
		const char *t = q->ckpt_note[i] ? q->ckpt_note[i] : "";
		pane_seg seg = { t, strstr(t, "crash") ? UI_BAD : UI_WARN, 0 };
		y += pane_flow(in, y, 2, &seg, 1, true, NULL);
	}
	sink_check(in, in.y + in.h - sc, q, true);
}
