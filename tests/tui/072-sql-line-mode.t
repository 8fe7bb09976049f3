#!/usr/bin/perl
# The SQL mode without the workbench screen (issue 19 item 3, "works in
# the plain line mode too"): `streamlab sql --line` is readline on the
# terminal with the sql> prompt; the live result of a streaming SELECT is
# printed again after each batch that changes it (there is no pane to
# redraw), Ctrl-C stops it; history is kept per mode, in two files
# (~/.streamlab_history for Lua, ~/.streamlab_sql_history for SQL), and a
# new session recalls each mode's own.  The statements run through the
# real spark.sql over the views of tests/repl/lib/sql_init.lua.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Test::More;
use File::Temp qw(tempdir);
use Tmux;

plan skip_all => 'tmux not installed' unless Tmux::available();
my $init = "$FindBin::Bin/../repl/lib/sql_init.lua";
my $home = tempdir(CLEANUP => 1);
my $t = Tmux->new(cols => 100, rows => 40, home => $home, args => ['sql', '--line', '--init', $init]);

sub typed {
	my ($line) = @_;
	(my $s = $line) =~ s/;$/\\;/; # tmux reads a final ';' as its own
	$t->type_line($s);
}
sub bottom { my @l = split /\n/, $t->screen; return $l[-1] // '' }

ok($t->wait_for(qr/^sql>\s*$/m, 10), 'the readline prompt is sql>');
typed('SELECT * FROM');
ok($t->wait_for(qr/^  ->\s*$/m), 'the continuation prompt');
typed('fruits;');
ok($t->wait_for(qr/^\|2  \|pear \|$/m), 'the batch result');
typed('SELECT word, count(*) AS n FROM words GROUP BY word;');
ok($t->wait_for(qr/^streaming query sql_1: memory sink sql_1, complete mode/m), 'a streaming SELECT starts');
typed(':lua');
ok($t->wait_for(qr/^Lua mode \(:sql for SQL\)\n>\s*$/m), ':lua: the > prompt');
typed('ms:addData({"b", "a", "b"}) spark.streams.active[1]:processAllAvailable()');
ok($t->wait_for(qr/^sql_1 after batch 0:\n\+----\+---\+\n\|word\|n  \|\n\+----\+---\+\n\|a   \|1  \|\n\|b   \|2  \|$/m),
   'after the batch the live table is printed again, rows sorted');
$t->send_keys('C-c');
ok($t->wait_for(qr/^sql_1 stopped after batch 0:/m), 'Ctrl-C stops the live query');
typed('print(#spark.streams.active)');
ok($t->wait_for(qr/^0$/m), 'the program goes on; no query active');
typed(':sql');
$t->send_keys('C-d');
ok($t->wait_for(qr/__EXIT=0/, 10), 'Ctrl-D leaves, exit 0');

sub slurp { open(my $fh, '<', $_[0]) or return ''; local $/; return <$fh> // '' }
my ($lua, $sql) = (slurp("$home/.streamlab_history"), slurp("$home/.streamlab_sql_history"));
like($sql, qr/^SELECT word, count\(\*\) AS n FROM words GROUP BY word;$/m, 'the SQL history file has the statement');
like($sql, qr/^SELECT \* FROM\nfruits;$/m, '... a statement over two lines as one entry');
unlike($sql, qr/addData/, '... and no Lua');
like($lua, qr/^ms:addData/m, 'the Lua history file has the Lua line');
unlike($lua, qr/GROUP BY/, '... and no SQL');

# a new session in the same home: each mode recalls its own
$t = Tmux->new(cols => 100, rows => 40, home => $home, args => ['sql', '--line', '--init', $init]);
ok($t->wait_for(qr/^sql>\s*$/m, 10), 'a new session');
$t->send_keys('Up');
ok($t->wait_for(qr/^sql> :lua$/m), 'Up: the last line typed in the SQL mode (:lua)');
$t->send_keys('Up');
ok($t->wait_for(qr/^sql> SELECT word, count/m), '... then the statement: no Lua line in between');
$t->send_keys('C-u');
typed(':lua');
$t->send_keys('Up');
ok($t->wait_for(qr/^> :sql$/m), 'in Lua mode, Up: the last line typed in Lua mode (:sql)');
$t->send_keys('Up');
ok($t->wait_for(qr/^> print\(#spark\.streams\.active\)$/m), '... then the Lua line before it');
$t->send_keys('C-u');
typed(':quit');
ok($t->wait_for(qr/__EXIT=0/, 10), ':quit exits 0');
done_testing();
