#!/usr/bin/perl
# `streamlab sql` headless (issue 19 item 4) and the SQL mode in line mode
# (item 3, "works in the plain line mode too"), as Flink's SQL client runs
# `-f FILE` and its prompt reads statements: a statement ends at a ';'
# outside quotes and comments, may span lines, several may share a line;
# the first error stops the run with its file, line and column (exit 1); a
# streaming SELECT headless runs over the data there is and prints its
# table.  The statements run through the real spark.sql (lib/sql_init.lua
# only registers views): the mode must hand it each statement's text
# exactly, which the results show.
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
	"SELECT 'a;b' AS s, \"c;d\" AS t, 1 AS `e;f` /* x; /* nested; */ y; */ -- z;\n  ; SELECT 2 AS two;");
is($st, 0, 'quotes and comments: exit 0') or diag($err);
like($out, qr/^\|s  \|t  \|e;f\|\n\+---\+---\+---\+\n\|a;b\|c;d\|1  \|$/m,
     "the first statement runs to the ';' outside quotes, nested comments and -- comments");
like($out, qr/^\|two\|\n\+---\+\n\|2  \|$/m, 'the second statement on the same line runs next');
($out, $err, $st) = run_sl('', 'sql', '--init', $init, '-e', "SELECT 'it''s; \\'; here' AS q;");
like($out, qr/^\|its; '; here\|$/m,
     "a backslash escape stays inside the string, and 'it''s' is two literals run together (Spark's)");
($out, $err, $st) = run_sl('', 'sql', '--init', $init, '-e', "SELECT 'x;\ny' AS s,\n length('x;\ny') AS n;");
like($out, qr/^\|x;\\ny\|4  \|$/m, "a statement over lines, a newline and a ';' inside its string: the text passed exactly");
($out, $err, $st) = run_sl('', 'sql', '--init', $init, '-e', "SELECT 1 AS a,\n 2 AS b;");
like($out, qr/^\|a  \|b  \|\n\+---\+---\+\n\|1  \|2  \|$/m, 'SELECT 1 AS a,\n 2 AS b: two columns');

# batch SELECTs over the init's tables
($out, $err, $st) = run_sl('', 'sql', '--init', $init, '-e',
	"SELECT fruit, id * 10 AS x FROM fruits WHERE id > 1; SELECT count(*) AS c, sum(n) AS s FROM nums WHERE n % 2 = 0;");
like($out, qr/^\|fruit\|x  \|\n\+-----\+---\+\n\|pear \|20 \|\n\+-----\+---\+$/m, 'a filter and a projection');
like($out, qr/^\|c  \|s  \|\n\+---\+---\+\n\|30 \|930\|$/m, 'an aggregation: 30 even numbers, their sum 930');

# a file: the first error stops, with the file and the line its statement starts on
my $f = file('q.sql', <<'EOF');
-- fruits first
SELECT * FROM fruits;

/* then
   a mistake */
SELEC id
  FROM fruits;
SELECT 'never' AS never;
EOF
($out, $err, $st) = run_sl('', 'sql', '--init', $init, $f);
is($st, 1, 'a failing statement: exit 1');
like($out, qr/\|apple\|/, 'the statement before it ran');
is($err, "error: $f:6:1: [PARSE_SYNTAX_ERROR] Syntax error at or near 'SELEC'.(line 1, pos 0)\n",
   "one line on stderr: the file's line and column of the error, Spark's message");
unlike($out, qr/never/, 'nothing after the error runs');

# an error inside a statement: the file's line and column, not the statement's
$f = file('q2.sql', "SELECT 1 AS one;\n-- a four-line statement from line 5\n\n\n  SELECT id,\n         fruit,\n         id +,\n    FROM fruits;\nSELECT 'never' AS never;\n");
($out, $err, $st) = run_sl('', 'sql', '--init', $init, $f);
is($st, 1, 'an error on the 3rd line of a statement: exit 1');
is($err, "error: $f:7:14: [PARSE_SYNTAX_ERROR] Syntax error at or near ','.(line 3, pos 13) (expected expression at 'id +')\n",
   "the statement starts on line 5, its 3rd line is the file's 7th: $f:7:14, and Spark's (line 3, pos 13) of the statement");
unlike($out, qr/never/, '... and stops there');
$f = file('q3.sql', "SELECT 1 AS one;  SELECT fruit\n  FROM fruits WHERE idd = 1;\n");
($out, $err, $st) = run_sl('', 'sql', '--init', $init, $f);
like($err, qr/^error: \Q$f\E:2:21: \[UNRESOLVED_COLUMN\.WITH_SUGGESTION\] A column or function parameter with name `idd` cannot be resolved\..*; line 2 pos 20/,
     'an analysis error: its place in the file too, for a statement that starts mid-line');

# a streaming SELECT headless: over the data there is now, its table, then stopped
$f = file('init2.lua', "dofile('$init')\nms:addData({'b', 'a', 'b', 'c', 'b'})\n");
($out, $err, $st) = run_sl('', 'sql', '--init', $f, '-e', 'SELECT word, count(*) AS n FROM words GROUP BY word;',
	'-e', 'SELECT * FROM sql_1');
is($st, 0, 'streaming headless: exit 0') or diag($err);
like($out, qr/^\|word\|n  \|\n\+----\+---\+\n\|a   \|1  \|\n\|b   \|3  \|\n\|c   \|1  \|\n\+----\+---\+\n/m,
     'the streaming aggregation: complete mode, the rows sorted');
my @tables = ($out =~ /^\|word\|n  \|$/mg);
is(scalar @tables, 2, 'its memory table sql_1 reads afterwards as a batch table');
($out, $err, $st) = run_sl('', 'sql', '--init', $f, '-e',
	"SELECT upper(word) AS w, length(word) AS len FROM words WHERE word <> 'a';");
is($st, 0, 'a streaming projection headless: exit 0') or diag($err);
like($out, qr/^\|w  \|len\|\n\+---\+---\+\n\|B  \|1  \|\n\|B  \|1  \|\n\|B  \|1  \|\n\|C  \|1  \|\n\+---\+---\+\n/m,
     'a streaming projection and filter: append mode, its rows');

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
SELECT 'one' AS first; SELECT 'two'
  AS second;
SELECT 1 AS a; /* then
  a mistake */ SELECT 2 AS b,
  3 AS c
  FRUM fruits;
SELECT * FROM
EOF
($out, $err, $st) = run_sl($in, 'sql', '--init', $init);
like($out, qr/\|2  \|pear \|/, 'line mode: a statement over two lines');
like($out, qr/^streaming query sql_1: memory sink sql_1, complete mode; its table is live/m,
     'line mode: a streaming SELECT starts a query to the memory sink');
like($out, qr/^Lua mode \(:sql for SQL\)\n/m, ':lua goes back to Lua');
like($out, qr/^sql_1 after batch 0:\n\+----\+---\+\n\|word\|n  \|\n\+----\+---\+\n\|x   \|2  \|\n\|y   \|1  \|\n/m,
     'line mode: the live table printed again after the batch, rows sorted');
like($out, qr/^\|first\|\n\+-----\+\n\|one  \|\n.*^\|second\|\n\+------\+\n\|two   \|$/ms, 'back in SQL mode: two statements, the second ends on the next line');
like($out, qr/^error: \[PARSE_SYNTAX_ERROR\] Syntax error at or near 'FRUM'\.\(line 4, pos 2\)$/m,
     'typed: the line and pos count from where the statement was typed (the comment after the ; before it is its line 1)');
like($out, qr/^error: the input ends inside a SQL statement \(its ';' is missing\)$/m,
     'input ending inside a statement says so');
is($st, 1, '... and exits 1, as an unfinished Lua chunk does');

done_testing();
