/* fuzz_ckpt: every checkpoint reader over a file of fuzzed bytes: the
 * first byte picks the file (metadata, offsets/0, commits/0, state delta
 * or snapshot of version 1), the rest is its contents.  Then the readers a
 * restart runs: recover, read offsets and commit, load state.  One private
 * directory for the whole run; the file is removed after each input. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "state/ckpt.h"
#include "core/fsutil.h"
#include "fuzz.h"
#include "state/state.h"

static char root[64];

static int setup(void)
{
	char p[160];
	if (root[0])
		return 0;
	strcpy(root, "/tmp/sl-fuzz-ckpt-XXXXXX");
	if (mkdtemp(root) == NULL)
		return -1;
	snprintf(p, sizeof p, "%s/state/0/0", root);
	if (sl_fs_mkdirs(p, NULL) != 0)
		return -1;
	snprintf(p, sizeof p, "%s/offsets", root);
	if (sl_fs_mkdirs(p, NULL) != 0)
		return -1;
	snprintf(p, sizeof p, "%s/commits", root);
	return sl_fs_mkdirs(p, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const files[] = { "metadata", "offsets/0",
					     "commits/0", "state/0/0/1.delta",
					     "state/0/0/1.snapshot" };
	char path[256], *id = NULL, *fp = NULL;
	const char *rel;
	sl_ckpt *c;
	sl_ckpt_plan plan;
	sl_ckpt_offsets o;
	sl_state *s;
	int64_t wm;
	FILE *f;
	if (size == 0 || setup() != 0)
		return 0;
	rel = files[data[0] % 5];
	snprintf(path, sizeof path, "%s/%s", root, rel);
	if ((f = fopen(path, "wb")) == NULL)
		return 0;
	fwrite(data + 1, 1, size - 1, f);
	fclose(f);
	if ((c = sl_ckpt_open_ro(root, NULL)) != NULL) {
		if (sl_ckpt_read_metadata(c, &id, &fp, NULL) == 0) {
			free(id);
			free(fp);
		}
		sl_ckpt_recover(c, &plan, NULL);
		sl_ckpt_offsets_init(&o);
		sl_ckpt_read_offsets(c, 0, &o, NULL);
		sl_ckpt_offsets_release(&o);
		sl_ckpt_read_commit(c, 0, &wm, NULL);
		if ((s = sl_state_new()) != NULL) {
			sl_ckpt_state_load(c, 0, 1, s, NULL, NULL);
			sl_state_free(s);
		}
		sl_ckpt_close(c);
	}
	unlink(path);
	return 0;
}
