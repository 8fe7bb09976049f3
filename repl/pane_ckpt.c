/*
 * pane_ckpt: the batch protocol as a timeline (LESSONS.md 5 V4), one row
 * per batch: offsets read (per source, Kafka per partition in the text),
 * the watermark the batch used, the state version it wrote, what the sink
 * did, and whether it committed; a crash marker where the query died; the
 * engine's crash and replay lines ("re-ran batch 5 with offsets/5", "sink
 * batch 5 already committed: skipped"); and the sink check: for the batch
 * ids seen, the rows expected (each committed batch once), the rows the
 * sink got, duplicates (rows of a batch written more than once) and
 * missing (a committed batch never written).  All from the feed.
 */
#include <stdio.h>
#include <string.h>

#include "pane.h"

static void sink_check(int y, ui_rect in, const model_query *q)
{
	int64_t expected = 0, got = 0, dup = 0, missing = 0;

	for (int i = 0; i < q->nbatches; i++) {
		const model_batch *b = sl_model_batch(q, i);
		if (!b->committed)
			continue;
		expected += b->out_rows;
		got += b->rows_written;
		if (b->writes > 1)
			dup += b->rows_written - b->out_rows;
		if (b->writes == 0 && b->out_rows > 0)
			missing += b->out_rows;
	}
	ui_printf(y, in.x, dup || missing ? UI_BAD : UI_GOOD, in.w,
		  "sink check: expected %lld rows, got %lld, duplicates %lld, "
		  "missing %lld",
		  (long long)expected, (long long)got, (long long)dup,
		  (long long)missing);
}

void pane_ckpt(ui_rect r, model_query *q)
{
	ui_rect in = pane_inner(r);
	int y = in.y, rows, first, notes;
	char line[600], ver[24], sink[32];

	ui_box(r, "checkpoint");
	if (q == NULL || q->nbatches == 0) {
		pane_empty(in, NULL);
		return;
	}
	ui_put(y++, in.x, UI_BOLD,
	       "batch offsets      wm       state sink      commit", in.w);
	notes = q->nnotes < 3 ? q->nnotes : 3;
	rows = in.h - 2 - notes;
	first = q->nbatches > rows ? q->nbatches - rows : 0;
	for (int i = first; i < q->nbatches && y < in.y + in.h - 1 - notes;
	     i++) {
		const model_batch *b = sl_model_batch(q, i);
		const char *wm =
		    b->watermark ? strchr(b->watermark, 'T') : NULL;
		int x;

		if (b->state_version >= 0)
			snprintf(ver, sizeof ver, "v%lld",
				 (long long)b->state_version);
		else
			snprintf(ver, sizeof ver, "-");
		if (b->sink == NULL)
			snprintf(sink, sizeof sink, "-");
		else if (b->sink_skipped)
			snprintf(sink, sizeof sink, "skipped");
		else
			snprintf(sink, sizeof sink, "%lld rows",
				 (long long)b->out_rows);
		snprintf(line, sizeof line,
			 "%5lld %-12.12s %-8.8s %-5s %-9.9s ", (long long)b->id,
			 b->offsets[0] ? b->offsets[0] : "-", wm ? wm + 1 : "-",
			 ver, sink);
		x = ui_put(y, in.x, UI_NORMAL, line, in.w);
		if (b->crash)
			x += ui_put(y, in.x + x, UI_BAD, "CRASH ", in.w - x);
		if (b->committed)
			x += ui_put(y, in.x + x, UI_GOOD,
				    b->replayed ? "commit (re-run)" : "commit",
				    in.w - x);
		else if (!b->crash)
			x += ui_put(y, in.x + x, UI_DIM, "running", in.w - x);
		y++;
	}
	for (int i = q->nnotes - notes; i < q->nnotes; i++)
		ui_put(y++, in.x,
		       strstr(q->ckpt_note[i], "crash") ? UI_BAD : UI_WARN,
		       q->ckpt_note[i] ? q->ckpt_note[i] : "", in.w);
	sink_check(in.y + in.h - 1, in, q);
}
