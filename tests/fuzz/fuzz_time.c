/* fuzz_time: timestamp text (CAST, the readers) and interval strings
 * (window, withWatermark, triggers), formatted back. */
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "fuzz.h"
#include "core/timeutil.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	int64_t us;
	sl_buf b;
	if (text == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	sl_buf_init(&b);
	if (sl_ts_parse(text, size, &us)) {
		sl_ts_format(us, &b);
		sl_ts_iso(us, &b);
	}
	if (sl_duration_parse(text, &us, NULL) == 0)
		sl_duration_format(us, &b);
	sl_buf_release(&b);
	free(text);
	return 0;
}
