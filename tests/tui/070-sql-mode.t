#!/usr/bin/perl
# The workbench's SQL mode (issue 19 item 3), typed as a learner types it:
# `:sql` switches the prompt to `sql> `; a statement ends at ';' and may
# span lines (the `  -> ` prompt); a batch result is a table, through the
# pager when it is taller than the Output pane; an error is one line; a
# streaming SELECT starts a query to the memory sink whose table is live
# above the progress line (Flink's SQL client's table mode) while the
# panes show the query as any other; Ctrl-C stops it and the program
# stays; `:lua` goes back; history is kept per mode; Tab completes tables,
# columns and keywords.  The statements run through the real spark.sql
# over the views tests/repl/lib/sql_init.lua registers (`words` is a
# memory stream's).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Test::More;
use Tmux;

plan skip_all => 'tmux not installed' unless Tmux::available();
my $init = "$FindBin::Bin/../repl/lib/sql_init.lua";
my $t = Tmux->new(cols => 120, rows => 40, args => ['sql', '--init', $init]);
$t->wait_for(qr/late \/ bad records/);

# tmux reads a ';' that ends an argument as its own separator
sub typed {
	my ($line) = @_;
	(my $s = $line) =~ s/;$/\\;/;
	$t->type_line($s);
}
sub input_line { my @l = split /\n/, $t->screen; return $l[-1] // '' }

ok($t->wait_for(qr/^sql>\s*$/m), '`streamlab sql` opens the workbench with the sql> prompt');

typed('SELECT *');
ok($t->wait_for(qr/^  ->\s*$/m), 'a statement without its ; waits: the continuation prompt');
typed('FROM fruits;');
my $s = $t->wait_for(qr/^\|\|2  \|pear \|/m);
ok($s, 'the statement over two lines ran: a batch result, as a table');
like($s, qr/^\|sql> SELECT \*\s+\|\n\|  -> FROM fruits;\s+\|$/m, 'both lines echoed with their prompts');

typed('SELEC id FROM fruits;');
$s = $t->wait_for(qr/^\|error: \[PARSE_SYNTAX_ERROR\] Syntax error at or near 'SELEC'\.\(line 1, pos 0\)\s+\|$/m);
ok($s, "an error is Spark's one line");
unlike($s, qr/stack traceback/, '... with no traceback');
typed('SELECT id,');
typed('  fruit,');
typed('  FROM fruits;');
$s = $t->wait_for(qr/^\|error: \[PARSE_SYNTAX_ERROR\] Syntax error at or near 'FROM'\.\(line 3, pos 2\) \(unexpected 'FROM'\)\s+\|$/m);
ok($s, 'an error in a statement typed over three lines: its line and pos in what was typed');

# a result taller than the Output pane: the pager
typed('SELECT * FROM nums;');
$s = $t->settled(qr/output: lines 1-\d+ of 6\d/);
ok($s, 'a tall batch result opens the pager on its first line');
$t->send_keys('q');
ok($t->wait_for(qr/^sql>\s*$/m), 'q: back to the prompt');

# streaming: a live result
typed('SELECT word, count(*) AS n FROM words GROUP BY word;');
$s = $t->wait_for(qr/result sql_1 \(complete mode\), no batch yet: Ctrl-C stops it/);
ok($s, 'a streaming SELECT: the live result box, before its first batch');
like($s, qr/^\|streaming query sql_1: memory sink sql_1, complete mode; its table is live/m,
     'the Output pane says what started');
like($s, qr/queries: 1\* sql_1 \[active\]/, 'the query is in the strip, focused');

typed(':lua');
ok($t->wait_for(qr/^>\s*$/m), ':lua: the Lua prompt');
typed('ms:addData({"b", "a", "b"}) spark.streams.active[1]:processAllAvailable()');
$s = $t->settled(qr/result sql_1 \(complete mode\) after batch 0: Ctrl-C stops it/);
ok($s, 'after a batch the live result says which');
like($s, qr/^\|\|word\|n  \|\s+\|\n\|\+----\+---\+\s+\|\n\|\|a   \|1  \|\s+\|\n\|\|b   \|2  \|\s+\|$/m,
     'the live table: the memory sink rows, sorted');
like($s, qr/\|\|-\s+\[a\] \[1\]\s+UPDATED/, 'the panes show the query as any other (windows pane)');
like($s, qr/^\|0 mem ->0\s+v1\s+2 rows\s+commit/m, '... and its checkpoint line');

typed('ms:addData({"c"}) spark.streams.active[1]:processAllAvailable()');
ok($t->wait_for(qr/after batch 1: Ctrl-C stops it.*\n\|\|a   \|1  \|\s+\|\n\|\|b   \|2  \|\s+\|\n\|\|c   \|1  \|/s),
   'the next batch changes the table in place');

# history per mode
$t->send_keys('Up');
ok($t->wait_for(qr/^> ms:addData\(\{"c"\}\)/m), 'Up in Lua mode: the Lua line');
$t->send_keys('C-u');
typed(':sql');
ok($t->wait_for(qr/^sql>\s*$/m), ':sql: the SQL prompt again');
$t->send_keys('Up');
ok($t->wait_for(qr/^sql> :lua$/m), 'Up in SQL mode: the last line typed in it (:lua) ...');
$t->send_keys('Up');
ok($t->wait_for(qr/^sql> SELECT word, count\(\*\) AS n FROM words GROUP BY word;$/m),
   '... then the SQL statement before it: no Lua line in between');
$t->send_keys('C-u');

# completion: a table after FROM, a column, a keyword in the case typed
$t->send_text('SELECT fruit FROM fr');
$t->send_keys('Tab');
ok($t->wait_for(qr/^sql> SELECT fruit FROM fruits$/m), 'Tab after FROM: the table');
$t->send_keys('C-u');
$t->send_text('SELECT fru');
$t->send_keys('Tab');
ok($t->wait_for(qr/^\|fruit  fruits\s+\|$/m), 'Tab: the column and the table that match');
$t->send_keys('C-u');
$t->send_text('SELECT words.w');
$t->send_keys('Tab');
ok($t->wait_for(qr/^sql> SELECT words\.word$/m), 'Tab after "words.": the column of that (streaming) view');
$t->send_keys('C-u');
$t->send_text('sele');
$t->send_keys('Tab');
ok($t->wait_for(qr/^sql> select$/m), 'Tab: a keyword, in the case typed');
$t->send_keys('C-u');

# Ctrl-C stops the live query, not the program
$t->send_keys('C-c');
$s = $t->wait_for(qr/^\|sql_1 stopped after batch 1:/m);
ok($s, 'Ctrl-C stops the live query; its last table stays in the Output pane');
like($s, qr/queries: 1\* sql_1 \[stopped\]/, 'the strip says stopped');
unlike($s, qr/result sql_1/, 'the live box is gone');
typed('SELECT * FROM sql_1;');
ok($t->wait_for(qr/^\|sql> SELECT \* FROM sql_1;.*\n(?:.*\n){3}\|\|a   \|1  \|/m),
   'the program is still here, and the memory table reads as a batch table');

typed(':quit');
ok($t->wait_for(qr/__EXIT=0/), ':quit exits 0');
done_testing();
