/*
 * peer_loop: the hand-written C peer of `make bench` (bench/run.pl; not a
 * test, not linked with the engine).  It does the streaming work of the
 * Lua workloads in bench/ by hand, batch by batch, so their events/s can
 * be compared in the same run:
 *
 *   peer_loop rate KEYS SLIDE_S EVENTS
 *       W1's rows as the rate source makes them (100 000 rows/s from
 *       2026-01-01 12:00:00, value = row number, one 1 s batch at a time):
 *       product_id = value % KEYS, amount = CAST(value % 10000 AS DOUBLE)
 *       / 100; each batch is materialised into column arrays (ts, key,
 *       amount) as a source hands them over, then aggregated: one open
 *       addressing table (key -> count, sum) per open window (60 s, sliding
 *       by SLIDE_S; 60 = tumbling), the watermark = max event time - 5 s,
 *       and after each batch every window whose end <= watermark is
 *       emitted (checksummed) and its table dropped, as append mode does.
 *   peer_loop json|csv DIR
 *       W2: every file of DIR in name order, one file a batch: a
 *       schema-specialised scanner for the line shape bench/gen writes
 *       (ts "2026-01-01 12:MM:SS", product_id "pN", amount N), the key
 *       parsed from its digits, then the same aggregation.
 *   peer_loop gen json|csv DIR LINES PER_FILE
 *       writes W2's files (the rows of stream_bench's W2).
 *
 * Prints one line:  peer EVENTS CPU_S WALL_S EMITTED CHECKSUM
 * CPU is the process's (getrusage), wall CLOCK_MONOTONIC; both cover the
 * batches only (generation of the rows included for rate, as the engine's
 * rate source generates them too; file reading included for files).
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#define RATE 100000
#define T0_US 1767268800000000LL /* 2026-01-01T12:00:00Z */
#define WIN_US 60000000LL
#define DELAY_US 5000000LL
#define MAXWIN 64

typedef struct ent {
	int64_t key; /* -1: empty */
	int64_t count;
	double sum;
} ent;

typedef struct win {
	int64_t start; /* INT64_MIN: slot unused */
	ent *t;
	size_t cap, n;
} win;

static win wins[MAXWIN];
static int64_t emitted;
static uint64_t checksum;

static double cpu_now(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

static double wall_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n);
	if (p == NULL) {
		fprintf(stderr, "peer_loop: out of memory\n");
		exit(1);
	}
	return p;
}

static ent *table_new(size_t cap)
{
	ent *t = xmalloc(cap * sizeof *t);
	for (size_t i = 0; i < cap; i++)
		t[i].key = -1;
	return t;
}

static inline uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

static void grow(win *w)
{
	size_t ocap = w->cap, i;
	ent *o = w->t;
	w->cap = ocap * 2;
	w->t = table_new(w->cap);
	for (i = 0; i < ocap; i++) {
		if (o[i].key >= 0) {
			size_t h = mix((uint64_t)o[i].key) & (w->cap - 1);
			while (w->t[h].key >= 0)
				h = (h + 1) & (w->cap - 1);
			w->t[h] = o[i];
		}
	}
	free(o);
}

static win *window_of(int64_t start)
{
	win *free_slot = NULL;
	for (int i = 0; i < MAXWIN; i++) {
		if (wins[i].t != NULL && wins[i].start == start)
			return &wins[i];
		if (wins[i].t == NULL && free_slot == NULL)
			free_slot = &wins[i];
	}
	if (free_slot == NULL) {
		fprintf(stderr, "peer_loop: more than %d open windows\n", MAXWIN);
		exit(1);
	}
	free_slot->start = start;
	free_slot->cap = 1024;
	free_slot->n = 0;
	free_slot->t = table_new(free_slot->cap);
	return free_slot;
}

static inline void add(win *w, int64_t key, double amount)
{
	size_t h = mix((uint64_t)key) & (w->cap - 1);
	while (w->t[h].key != key) {
		if (w->t[h].key < 0) {
			if (2 * (w->n + 1) > w->cap) {
				grow(w);
				add(w, key, amount);
				return;
			}
			w->t[h].key = key;
			w->t[h].count = 0;
			w->t[h].sum = 0;
			w->n++;
			break;
		}
		h = (h + 1) & (w->cap - 1);
	}
	w->t[h].count++;
	w->t[h].sum += amount;
}

/* The window tables one batch touches: the last window looked up is kept,
 * so a run of rows in one window costs no search. */
static void aggregate(const int64_t *ts, const int64_t *key, const double *amt,
		      size_t n, int64_t slide)
{
	win *last[MAXWIN] = { 0 };
	int64_t last_start = INT64_MIN;
	int nw = (int)(WIN_US / slide);
	for (size_t i = 0; i < n; i++) {
		/* the latest window containing ts starts at floor(ts / slide) */
		int64_t s0 = ts[i] - ((ts[i] % slide) + slide) % slide;
		if (s0 != last_start) {
			for (int k = 0; k < nw; k++)
				last[k] = window_of(s0 - k * slide);
			last_start = s0;
		}
		for (int k = 0; k < nw; k++)
			add(last[k], key[i], amt[i]);
	}
}

/* Append mode: a window whose end <= watermark is final, emitted, dropped. */
static void evict(int64_t watermark)
{
	for (int i = 0; i < MAXWIN; i++) {
		win *w = &wins[i];
		if (w->t == NULL || w->start + WIN_US > watermark)
			continue;
		for (size_t j = 0; j < w->cap; j++) {
			if (w->t[j].key >= 0) {
				emitted++;
				checksum += (uint64_t)w->t[j].count * 31 +
					    (uint64_t)w->t[j].key +
					    (uint64_t)(w->t[j].sum * 100.0 + 0.5);
			}
		}
		free(w->t);
		w->t = NULL;
	}
}

static void report(int64_t events, double c0, double w0)
{
	printf("peer %lld %.6f %.6f %lld %llu\n", (long long)events,
	       cpu_now() - c0, wall_now() - w0, (long long)emitted,
	       (unsigned long long)checksum);
}

static void run_rate(int64_t keys, int64_t slide_s, int64_t events)
{
	int64_t *ts = xmalloc(RATE * sizeof *ts);
	int64_t *key = xmalloc(RATE * sizeof *key);
	double *amt = xmalloc(RATE * sizeof *amt);
	int64_t v = 0, maxts = INT64_MIN;
	double c0 = cpu_now(), w0 = wall_now();
	while (v < events) {
		size_t n = 0;
		for (; n < RATE && v < events; n++, v++) {
			ts[n] = T0_US + v * (1000000 / RATE);
			key[n] = v % keys;
			amt[n] = (double)(v % 10000) / 100;
		}
		aggregate(ts, key, amt, n, slide_s * 1000000);
		if (ts[n - 1] > maxts)
			maxts = ts[n - 1];
		evict(maxts - DELAY_US);
	}
	report(events, c0, w0);
}

/* ---- W2: files ---- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;
	if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0) {
		perror(path);
		exit(1);
	}
	rewind(f);
	buf = xmalloc((size_t)n + 1);
	if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
		perror(path);
		exit(1);
	}
	fclose(f);
	buf[n] = 0;
	*len = (size_t)n;
	return buf;
}

/* "2026-01-01 12:MM:SS" -> us since the epoch (fixed layout, the day is
 * the generator's: only HH:MM:SS vary). */
static inline int64_t parse_ts(const char *p)
{
	int hh = (p[11] - '0') * 10 + (p[12] - '0');
	int mm = (p[14] - '0') * 10 + (p[15] - '0');
	int ss = (p[17] - '0') * 10 + (p[18] - '0');
	return 1767225600000000LL + (int64_t)(hh * 3600 + mm * 60 + ss) * 1000000;
}

static inline const char *num(const char *p, int64_t *out)
{
	int64_t v = 0;
	while (*p >= '0' && *p <= '9')
		v = v * 10 + (*p++ - '0');
	*out = v;
	return p;
}

/* One line of {"ts":"...","product_id":"pN","amount":N} or ts,pN,N. */
static size_t scan(const char *buf, size_t len, int csv, int64_t *ts,
		   int64_t *key, double *amt, size_t cap)
{
	const char *p = buf, *end = buf + len;
	size_t n = 0;
	while (p < end && n < cap) {
		int64_t a;
		if (csv) {
			ts[n] = parse_ts(p);
			p = num(p + 21, &key[n]); /* after "...SS,p" */
			p = num(p + 1, &a);
		} else {
			ts[n] = parse_ts(p + 7);
			p = num(p + 43, &key[n]); /* {"ts":"...","product_id":"p */
			p = num(p + 11, &a);      /* ","amount": */
			p++;                      /* } */
		}
		amt[n++] = (double)a;
		while (p < end && *p++ != '\n')
			;
	}
	return n;
}

static void run_files(const char *format, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL, path[4096];
	size_t nn = 0, cap = 0, rows_cap = 1 << 20, i;
	int64_t *ts = xmalloc(rows_cap * sizeof *ts);
	int64_t *key = xmalloc(rows_cap * sizeof *key);
	double *amt = xmalloc(rows_cap * sizeof *amt);
	int64_t events = 0, maxts = INT64_MIN;
	int csv = strcmp(format, "csv") == 0;
	double c0, w0;
	if (d == NULL) {
		perror(dir);
		exit(1);
	}
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		if (nn == cap)
			names = realloc(names, (cap = cap ? cap * 2 : 64) * sizeof *names);
		names[nn++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(names, nn, sizeof *names, cmp_str);
	c0 = cpu_now();
	w0 = wall_now();
	for (i = 0; i < nn; i++) {
		size_t len, n;
		char *buf;
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		buf = slurp(path, &len);
		n = scan(buf, len, csv, ts, key, amt, rows_cap);
		free(buf);
		aggregate(ts, key, amt, n, WIN_US);
		for (size_t j = 0; j < n; j++)
			if (ts[j] > maxts)
				maxts = ts[j];
		evict(maxts - DELAY_US);
		events += (int64_t)n;
	}
	report(events, c0, w0);
}

static void gen(const char *format, const char *dir, int64_t lines,
		int64_t per_file)
{
	char name[4096], ts[32];
	int csv = strcmp(format, "csv") == 0;
	mkdir(dir, 0755);
	for (int64_t f = 0; f * per_file < lines; f++) {
		FILE *fp;
		snprintf(name, sizeof name, "%s/in-%03lld.%s", dir, (long long)f,
			 format);
		if ((fp = fopen(name, "w")) == NULL) {
			perror(name);
			exit(1);
		}
		for (int64_t i = f * per_file; i < (f + 1) * per_file && i < lines; i++) {
			int64_t s = i / 10000;
			snprintf(ts, sizeof ts, "2026-01-01 12:%02d:%02d",
				 (int)(s / 60 % 60), (int)(s % 60));
			if (csv)
				fprintf(fp, "%s,p%d,%d\n", ts, (int)(i % 1000),
					(int)(i % 100));
			else
				fprintf(fp,
					"{\"ts\":\"%s\",\"product_id\":\"p%d\","
					"\"amount\":%d}\n",
					ts, (int)(i % 1000), (int)(i % 100));
		}
		if (fclose(fp) != 0) {
			perror(name);
			exit(1);
		}
	}
}

int main(int argc, char **argv)
{
	if (argc == 5 && strcmp(argv[1], "rate") == 0) {
		int64_t keys = atoll(argv[2]), slide = atoll(argv[3]);
		if (keys < 1 || slide < 1 || 60 % slide != 0) {
			fprintf(stderr, "peer_loop: rate: bad KEYS or SLIDE_S\n");
			return 2;
		}
		run_rate(keys, slide, atoll(argv[4]));
	} else if (argc == 3 && (strcmp(argv[1], "json") == 0 ||
				 strcmp(argv[1], "csv") == 0)) {
		run_files(argv[1], argv[2]);
	} else if (argc == 6 && strcmp(argv[1], "gen") == 0) {
		gen(argv[2], argv[3], atoll(argv[4]), atoll(argv[5]));
	} else {
		fprintf(stderr, "usage: peer_loop rate KEYS SLIDE_S EVENTS | "
			"json|csv DIR | gen json|csv DIR LINES PER_FILE\n");
		return 2;
	}
	return 0;
}
