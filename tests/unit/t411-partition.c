/*
 * t411-partition: the pieces of formats/partition.h one by one: Spark's
 * ExternalCatalogUtils.escapePathName / unescapePathName (the escaped set,
 * a '%' not followed by two hex digits kept, a trailing "%4" kept), the
 * partitionBy option's JSON, the split of a batch (groups sorted by
 * directory, rows in input order, nulls and '' in the default partition,
 * the partition columns left out), and type inference over directories
 * (PartitioningUtils.inferPartitionColumnValue and the widening).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/batch.h"
#include "core/col.h"
#include "formats/partition.h"
#include "tap.h"

static sl_err err;

static const char *esc(const char *s)
{
	static char out[256];
	sl_buf b;
	sl_buf_init(&b);
	sl_part_escape(s, strlen(s), &b);
	snprintf(out, sizeof out, "%s", sl_buf_cstr(&b));
	sl_buf_release(&b);
	return out;
}

static const char *unesc(const char *s)
{
	static char out[256];
	char *u = sl_part_unescape(s, strlen(s));
	snprintf(out, sizeof out, "%s", u ? u : "(null)");
	free(u);
	return out;
}

static void test_escape(void)
{
	is_str(esc("plain-value_1.5 x"), "plain-value_1.5 x",
	       "escape: letters, digits, '-', '_', '.', ' ' kept (not Windows)");
	is_str(esc("a/b:c=d%e#f?g*h'i\"j\\k{l[m]n^o}"),
	       "a%2Fb%3Ac%3Dd%25e%23f%3Fg%2Ah%27i%22j%5Ck%7Bl%5Bm%5Dn%5Eo}",
	       "escape: Spark's charToEscape set ('}' is not in it)");
	is_str(esc("\x01\n\x1f\x7f"), "%01%0A%1F%7F", "escape: control bytes");
	is_str(esc("caf\xc3\xa9"), "caf\xc3\xa9", "escape: UTF-8 passes");
	is_str(unesc("a%2Fb%3Ac"), "a/b:c", "unescape: %%XX decoded");
	is_str(unesc("100%"), "100%", "unescape: a trailing '%%' kept");
	is_str(unesc("x%4"), "x%4", "unescape: '%%' and one digit at the end kept");
	is_str(unesc("%zz%41"), "%zzA", "unescape: '%%' without hex kept, the next decoded");
	is_str(unesc(esc("k=v/w%")), "k=v/w%", "unescape(escape(s)) == s");
}

static void test_option(void)
{
	const char *names[] = { "day", "a\"b" };
	char *json = sl_part_cols_json(names, 2), **cols = NULL;
	sl_options o;
	int n = 0;
	is_str(json, "[\"day\",\"a\\\"b\"]", "option: a JSON array of names");
	sl_options_init(&o);
	sl_options_set(&o, SL_PART_OPTION, json);
	ok(sl_part_cols_get(&o, &cols, &n, &err) == 0 && n == 2 &&
	       strcmp(cols[0], "day") == 0 && strcmp(cols[1], "a\"b") == 0,
	   "option: read back");
	sl_part_cols_free(cols, n);
	sl_options_set(&o, SL_PART_OPTION, "day");
	ok(sl_part_cols_get(&o, &cols, &n, &err) == SL_EINVAL &&
	       strstr(err.msg, "expected a JSON array") != NULL,
	   "option: not an array: %s", err.msg);
	sl_options_release(&o);
	free(json);
}

static sl_batch *batch3(void)
{
	sl_type *st = sl_type_parse_ddl("id INT, k STRING, n INT", &err);
	sl_col *c[3];
	static const char *ks[] = { "b", "a/x", NULL, "b", "", "a/x" };
	sl_batch *b;
	c[0] = sl_col_new(st->fields[0].type, 6);
	c[1] = sl_col_new(st->fields[1].type, 6);
	c[2] = sl_col_new(st->fields[2].type, 6);
	for (int i = 0; i < 6; i++) {
		sl_col_i32(c[0])[i] = i + 1;
		sl_col_i32(c[2])[i] = i % 2;
		if (ks[i] == NULL)
			sl_col_set_null(c[1], i);
		else
			sl_col_set_str(c[1], i, ks[i], strlen(ks[i]));
	}
	b = sl_batch_new(st, 6, c);
	sl_type_free(st);
	return b;
}

static const char *ids(const sl_batch *b)
{
	static char out[128];
	size_t at = 0;
	out[0] = '\0';
	for (int64_t i = 0; i < b->nrows; i++)
		at += (size_t)snprintf(out + at, sizeof out - at, "%s%d",
				       i ? "," : "", sl_col_i32(b->cols[0])[i]);
	return out;
}

static void test_split(void)
{
	sl_batch *b = batch3();
	char *one[] = { "k" }, *two[] = { "n", "k" }, *bad[] = { "zz" };
	sl_part_group *g;
	int ng;
	ok(sl_part_split(b, one, 1, &g, &ng, &err) == 0 && ng == 3,
	   "split by k: three directories");
	is_str(g[0].subdir, "k=__HIVE_DEFAULT_PARTITION__", "null and '' share the default partition");
	is_str(ids(g[0].data), "3,5", "its rows in input order");
	is_str(g[1].subdir, "k=a%2Fx", "then k=a%%2Fx (sorted by directory)");
	is_str(ids(g[1].data), "2,6", "its rows");
	is_str(g[2].subdir, "k=b", "then k=b");
	ok(g[2].data->ncols == 2 && strcmp(g[2].data->schema->fields[1].name, "n") == 0,
	   "the partition column is left out of the rows");
	sl_part_groups_free(g, ng);
	ok(sl_part_split(b, two, 2, &g, &ng, &err) == 0 && ng == 4, "split by n, k: four directories");
	is_str(g[0].subdir, "n=0/k=__HIVE_DEFAULT_PARTITION__", "two levels, in partitionBy's order");
	is_int(g[0].data->ncols, 1, "only id is left");
	sl_part_groups_free(g, ng);
	ok(sl_part_check(b->schema, bad, 1, &err) == SL_EANALYSIS &&
	       strcmp(err.msg, "Partition column `zz` not found in schema "
			       "struct<id:int,k:string,n:int>") == 0,
	   "check: %s", err.msg);
	sl_batch_free(b);
}

static char root[] = "/tmp/t411-XXXXXX";

static void mk(const char *rel)
{
	char p[512], *s;
	FILE *f;
	snprintf(p, sizeof p, "%s/%s", root, rel);
	for (s = p + strlen(root) + 1; (s = strchr(s, '/')) != NULL; s++) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	f = fopen(p, "w");
	fputs("{}\n", f);
	fclose(f);
}

static const char *types_of(const char *const *rels, int n)
{
	static char out[256];
	char **files = calloc((size_t)n, sizeof *files);
	sl_part_spec *ps;
	sl_buf b;
	int nf = n;
	for (int k = 0; k < n; k++) {
		mk(rels[k]);
		files[k] = malloc(512);
		snprintf(files[k], 512, "%s/%s", root, rels[k]);
	}
	ps = sl_part_discover(root, files, &nf, NULL, NULL, &err);
	sl_buf_init(&b);
	if (ps == NULL)
		sl_buf_printf(&b, "ERR %s", err.msg);
	else
		sl_type_ddl(sl_part_schema(ps), &b);
	snprintf(out, sizeof out, "%s", sl_buf_cstr(&b));
	sl_buf_release(&b);
	sl_part_spec_free(ps);
	for (int k = 0; k < nf; k++)
		free(files[k]);
	free(files);
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'/*", root);
	if (system(cmd) != 0)
		diag("cleanup failed");
	return out;
}

static void test_infer(void)
{
	const char *a[] = { "i=1/f.json", "i=-2147483648/g.json" };
	const char *b[] = { "i=1/f.json", "i=2147483648/g.json" };
	const char *c[] = { "i=1/f.json", "i=1.5/g.json" };
	const char *d[] = { "i=1/f.json", "i=x/g.json" };
	const char *e[] = { "i=__HIVE_DEFAULT_PARTITION__/f.json" };
	const char *f[] = { "t=2026-01-01 10%3A00%3A00/f.json", "t=__HIVE_DEFAULT_PARTITION__/g.json" };
	const char *g[] = { "t=2026-01-01 10%3A00%3A00/f.json", "t=1/g.json" };
	const char *h[] = { "d=2026-01-01/f.json" };
	const char *i[] = { "x=NaN/f.json", "x=1e3/g.json" };
	const char *j[] = { "a=1/b=x/f.json", "a=2/b=y/g.json", "h.json" };
	is_str(types_of(a, 2), "i INT", "INT (Integer.parseInt, MIN_VALUE too)");
	is_str(types_of(b, 2), "i BIGINT", "INT and BIGINT widen to BIGINT");
	is_str(types_of(c, 2), "i DOUBLE", "INT and DOUBLE widen to DOUBLE");
	is_str(types_of(d, 2), "i STRING", "a number and a word: STRING");
	is_str(types_of(e, 1), "i STRING", "only nulls: STRING");
	is_str(types_of(f, 2), "t TIMESTAMP", "'yyyy-MM-dd HH:mm:ss' (escaped ':') and null: TIMESTAMP");
	is_str(types_of(g, 2), "t STRING", "TIMESTAMP and INT: STRING");
	is_str(types_of(h, 1), "d DATE", "a date: DATE (PartitioningUtils dateTry)");
	is_str(types_of(i, 2), "x DOUBLE", "NaN and 1e3: DOUBLE (Double.parseDouble)");
	is_str(types_of(j, 3), "a INT, b STRING", "two levels; a file at the root is left out");
}

int main(void)
{
	if (mkdtemp(root) == NULL)
		return 1;
	test_escape();
	test_option();
	test_split();
	test_infer();
	rmdir(root);
	return done_testing();
}
