/* fuzz_parquet: a Parquet file from memory: footer, schema, then every
 * row group read whole (all columns), as spark.read:parquet does.  The
 * reader must refuse a bad file with a one-line error, never crash. */
#include "fuzz.h"
#include "formats/parquet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sl_parquet_file *f = sl_parquet_open_buf("fuzz.parquet", data, size,
						 NULL);
	int rg, n;
	if (f == NULL)
		return 0;
	n = sl_parquet_file_row_groups(f);
	for (rg = 0; rg < n && rg < 64; rg++)
		sl_batch_free(sl_parquet_read_row_group(f, rg, NULL, NULL));
	sl_parquet_file_free(f);
	return 0;
}
