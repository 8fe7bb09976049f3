/*
 * err: formatting of the engine's one-line error values.  Never prints.
 */
#include "core/err.h"

#include <stdio.h>
#include <string.h>

int sl_err_vset(sl_err *err, int code, const char *fmt, va_list ap)
{
	if (err == NULL)
		return code;
	err->code = code;
	vsnprintf(err->msg, sizeof err->msg, fmt, ap);
	err->hint[0] = '\0';
	return code;
}

int sl_err_set(sl_err *err, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sl_err_vset(err, code, fmt, ap);
	va_end(ap);
	return code;
}

void sl_err_hint(sl_err *err, const char *fmt, ...)
{
	va_list ap;
	if (err == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(err->hint, sizeof err->hint, fmt, ap);
	va_end(ap);
}

void sl_err_prefix(sl_err *err, const char *prefix)
{
	size_t pl, ml;
	if (err == NULL || prefix == NULL)
		return;
	pl = strlen(prefix);
	ml = strlen(err->msg);
	if (pl + 2 >= sizeof err->msg)
		return;
	if (pl + 2 + ml >= sizeof err->msg)
		ml = sizeof err->msg - pl - 3;
	memmove(err->msg + pl + 2, err->msg, ml);
	err->msg[pl + 2 + ml] = '\0';
	memcpy(err->msg, prefix, pl);
	err->msg[pl] = ':';
	err->msg[pl + 1] = ' ';
}

void sl_err_clear(sl_err *err)
{
	if (err == NULL)
		return;
	err->code = SL_OK;
	err->msg[0] = '\0';
	err->hint[0] = '\0';
}

const char *sl_err_codename(int code)
{
	switch (code) {
	case SL_OK: return "ok";
	case SL_ENOMEM: return "OutOfMemory";
	case SL_EINVAL: return "IllegalArgumentException";
	case SL_EANALYSIS: return "AnalysisException";
	case SL_EPARSE: return "ParseException";
	case SL_EIO: return "IOException";
	case SL_EDATA: return "MalformedRecordException";
	case SL_ESTATE: return "IllegalStateException";
	case SL_ECHECKPOINT: return "CheckpointException";
	case SL_EUSER: return "UserCodeException";
	case SL_ECRASH: return "SimulatedCrash";
	case SL_EINTR: return "Interrupted";
	default: return "InternalError";
	}
}

int sl_err_nomem(sl_err *err)
{
	return sl_err_set(err, SL_ENOMEM, "out of memory");
}
