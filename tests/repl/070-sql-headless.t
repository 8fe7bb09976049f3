#!/usr/bin/perl
# `streamlab sql` headless (issue 19 item 4) and the SQL mode in line mode
# (item 3, "works in the plain line mode too"), as Flink's SQL client runs
# `-f FILE` and its prompt reads statements: a statement ends at a ';'
# outside quotes and comments, may span lines, several may share a line;
# the first error stops the run with its file and line (exit 1); a
# streaming SELECT headless runs over the data there is and prints its
# table.  spark.sql is the stand-in of lib/sql_fake.lua (these tests are
# about the mode, not the SQL front end): ECHO gives back the statement
# text exactly as the mode cut it.
use strict;
use warnings;
use Test::More;
use File::Temp qw(tempdir);
use FindBin;
use lib "$FindBin::Bin/lib";
use RunSl;

my $dir = tempdir(CLEANUP => 1);
my $init = "$FindBin::Bin/lib/sql_init.lua";
my ($out, $err, $st);

sub file {
	my ($name, $text) = @_;
	open(my $fh, '>', "$dir/$name") or die;
	print $fh $text;
	close $fh;
	return "$dir/$name";
}

# -e: a batch result, shown whole
($out, $err, $st) = run_sl('', 'sql', '--init', $init, '-e', 'SELECT * FROM fruits');
is($st, 0, '-e: exit 0');
like($out, qr/^\|id \|fruit\|\n\+---\+-----\+\n\|1  \|apple\|\n\|2  \|pear \|\n/m, '-e: the table, whole (no ; needed at the end)');
is($err, '', '-e: nothing on stderr');

# where a statement ends: quotes and comments hide ';'
($out, $err, $st) = run_sl('', 'sql', '--init', $init, '-e',
	"ECHO 'a;b' \"c;d\" `e;f` /* x; /* nested; */ y; */ -- z;\n  w; ECHO 2;");
is($st, 0, 'quotes and comments: exit 0');
like($out, qr/^\|ECHO 'a;b' "c;d" `e;f` \/\* x; \/\* nested; \*\/ y; \*\/ -- z;\\n  w\|$/m,
     "the first statement runs to the ';' outside quotes, nested comments and -- comments");
like($out, qr/^\|ECHO 2\s*\|$/m, 'the second statement on the same line runs next');
($out, $err, $st) = run_sl('', 'sql', '--init', $init, '-e', "ECHO 'it''s; \\'; here';");
like($out, qr/^\|ECHO 'it''s; \\'; here'\|$/m, "a doubled quote and a backslash escape stay inside the string");

# a file: the first error stops, with the file and the line its statement starts on
my $f = file('q.sql', <<'EOF');
-- fruits first
SELECT * FROM fruits;

/* then
   a mistake */
SELEC id
  FROM fruits;
ECHO never;
EOF
($out, $err, $st) = run_sl('', 'sql', '--init', $init, $f);
is($st, 1, 'a failing statement: exit 1');
like($out, qr/\|apple\|/, 'the statement before it ran');
is($err, "error: $f:6: [PARSE_SYNTAX_ERROR] Syntax error at or near 'SELEC'.\n",
   "one line on stderr: the file, the line the statement starts on, Spark's message");
unlike($out, qr/never/, 'nothing after the error runs');

# a streaming SELECT headless: over the data there is now, its table, then stopped
$f = file('init2.lua', "dofile('$init')\nms:addData({'b', 'a', 'b', 'c', 'b'})\n");
($out, $err, $st) = run_sl('', 'sql', '--init', $f, '-e', 'SELECT word, count(*) AS n FROM words GROUP BY word;',
	'-e', 'SELECT * FROM sql_1');
is($st, 0, 'streaming headless: exit 0') or diag($err);
like($out, qr/^\|word\|n  \|\n\+----\+---\+\n\|a   \|1  \|\n\|b   \|3  \|\n\|c   \|1  \|\n\+----\+---\+\n/m,
     'the streaming aggregation: complete mode, the rows sorted');
my @tables = ($out =~ /^\|word\|n  \|$/mg);
is(scalar @tables, 2, 'its memory table sql_1 reads afterwards as a batch table');

# usage errors
($out, $err, $st) = run_sl('', 'sql', '--bogus');
is($st, 2, 'an unknown option: exit 2');
like($err, qr/^streamlab: sql: unknown option '--bogus'/, 'an unknown option: named');
($out, $err, $st) = run_sl('', 'sql', "$dir/none.sql");
is($st, 1, 'a missing file: exit 1');
like($err, qr/^streamlab: sql: cannot read '\Q$dir\E\/none.sql': No such file/, 'a missing file: named');

# line mode: `streamlab sql` with a pipe is the SQL prompt without prompts
my $in = <<'EOF';
SELECT *
  FROM fruits;
SELECT word, count(*) AS n FROM words GROUP BY word;
:lua
ms:addData({"x", "y", "x"})
spark.streams.active[1]:processAllAvailable()
:sql
ECHO one; ECHO two
;
SELECT * FROM
EOF
($out, $err, $st) = run_sl($in, 'sql', '--init', $init);
like($out, qr/\|2  \|pear \|/, 'line mode: a statement over two lines');
like($out, qr/^streaming query sql_1: memory sink sql_1, complete mode; its table is live/m,
     'line mode: a streaming SELECT starts a query to the memory sink');
like($out, qr/^Lua mode \(:sql for SQL\)\n/m, ':lua goes back to Lua');
like($out, qr/^sql_1 after batch 0:\n\+----\+---\+\n\|word\|n  \|\n\+----\+---\+\n\|x   \|2  \|\n\|y   \|1  \|\n/m,
     'line mode: the live table printed again after the batch, rows sorted');
like($out, qr/^\|ECHO one\|.*^\|ECHO two\|/ms, 'back in SQL mode: two statements, the second ends on the next line');
like($out, qr/^error: the input ends inside a SQL statement \(its ';' is missing\)$/m,
     'input ending inside a statement says so');
is($st, 1, '... and exits 1, as an unfinished Lua chunk does');

done_testing();
