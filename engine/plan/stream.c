/*
 * stream: the small shared vocabulary of streaming: output-mode names and
 * ids for queries.
 *
 * Query ids are random UUIDs (core/uuid.h).
 */
#include "plan/stream.h"

#include <stddef.h>
#include <strings.h>

#include "core/uuid.h"

int sl_outmode_parse(const char *s, sl_outmode *out, sl_err *err)
{
	if (s != NULL && strcasecmp(s, "append") == 0)
		*out = SL_MODE_APPEND;
	else if (s != NULL && strcasecmp(s, "update") == 0)
		*out = SL_MODE_UPDATE;
	else if (s != NULL && strcasecmp(s, "complete") == 0)
		*out = SL_MODE_COMPLETE;
	else
		return sl_err_set(
		    err, SL_EINVAL,
		    "Unknown output mode %s. Accepted output modes "
		    "are 'append', 'complete', 'update'",
		    s ? s : "null");
	return 0;
}

const char *sl_outmode_name(sl_outmode m)
{
	switch (m) {
	case SL_MODE_UPDATE: return "Update";
	case SL_MODE_COMPLETE: return "Complete";
	case SL_MODE_APPEND:
	default: return "Append";
	}
}

void sl_stream_uuid(char out[37])
{
	sl_uuid_v4(out);
}
