#!/usr/bin/perl
# The input rules in the workbench itself (the console applies them the
# same in every mode; tests/repl/005-input.t has the details): a chain
# typed line by line comes back from history (Up) as ONE entry; the ':'
# hint; awaitTermination() on the real clock blocks, the panes keep
# drawing meanwhile, Ctrl-C ends the wait and the query is still active;
# librdkafka's own log lines (CONFWARN) never reach the screen; and the
# same continuation and paste in --line mode (readline's own bracketed
# paste: the pasted block waits for Enter there, then runs as one input).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Test::More;
use File::Temp ();
use Tmux;

plan skip_all => 'tmux not installed' unless Tmux::available();
my $t = Tmux->new(cols => 120, rows => 40);
ok($t->wait_for(qr/late \/ bad records/, 10), 'the workbench is up');

$t->type_line('df = spark.createDataFrame({{1, "a"}, {2, "b"}}, "id INT, name STRING")');
$t->type_line('  :where("id > 1")');
$t->type_line('  :select("name")');
$t->type_line('df.columns[1], df:count()');
ok($t->wait_for(qr/^\|"name"\s+1\s+\|$/m), 'a chain typed line by line: df = df:where(..):select(..)');
$t->send_keys('Up', 'Up');
ok($t->wait_for(qr/^> df = spark\.createDataFrame.*\x{21b5}  :where\("id > 1"\)\x{21b5}  :select\("name"\)$/m),
   'Up recalls the whole chain as one history entry');
$t->send_keys('C-u');

$t->type_line(':selct');
ok($t->wait_for(qr/^\|error: unknown command ':selct' \(try :help; a method call continuing the line above is ':selct\(\.\.\.\)'\)/m),
   'a : line that is neither a command nor a continuation: the hint');

# awaitTermination on the real clock
$t->type_line('spark.clock:real()');
$t->type_line('q = spark.readStream:format("rate"):option("rowsPerSecond", 5):load().writeStream:format("memory"):queryName("r"):trigger{processingTime = "1 second"}:start()');
$t->type_line('q:awaitTermination()');
ok($t->wait_for(qr/\(running: Ctrl-C stops it\)/), 'awaitTermination() blocks');
my $s1 = $t->wait_for(qr/^ r\s+\S+\s+batch [1-9]/m, 10);
ok($s1, 'the progress line moves while it waits (batches run, the panes redraw)');
ok($t->wait_for(qr/^ r\s+\S+\s+batch ([2-9]|\d\d)/m, 10), 'and moves on');
like($t->screen, qr/\(running: Ctrl-C stops it\)/, 'still waiting');
$t->send_keys('C-c');
ok($t->wait_for(qr/^\|interrupted: .*still active/m), 'Ctrl-C ends the wait');
$t->type_line('q.isActive');
ok($t->wait_for(qr/^\|true\s+\|$/m), 'the query is still active');
$t->type_line('q:stop()');
$t->type_line('q:awaitTermination()');
$t->type_line('print("awaited")');
ok($t->wait_for(qr/^\|awaited\s+\|$/m), 'awaitTermination of a stopped query returns at once');

# librdkafka's CONFWARN stays off the screen
$t->type_line('kafka.createTopic("t", 1)');
$t->type_line('kafka.produce("t", "v1")');
$t->type_line('qk = spark.readStream:format("kafka"):option("subscribe", "t"):option("startingOffsets", "earliest"):load().writeStream:format("memory"):queryName("k"):start()');
$t->type_line('qk:processAllAvailable()');
$t->type_line('spark.table("k"):count()');
my $s = $t->wait_for(qr/^\|1\s+\|$/m, 20);
ok($s, 'the Kafka query ran');
unlike($s, qr/CONFWARN|librdkafka/, 'no librdkafka line on the screen');
like($s, qr/embedded kafka cluster started/, "streamlab's own Kafka notes still show");
$t->type_line('qk:stop()');
$t->type_line(':quit');
ok($t->wait_for(qr/__EXIT=0/, 10), 'quits with 0');

# --line: the same rules through readline on the terminal
my $l = Tmux->new(cols => 100, rows => 30, args => ['--line']);
ok($l->wait_for(qr/^> ?$/m, 10), '--line is up');
$l->type_line('s = "a,b"');
$l->type_line('s = (s)');
$l->type_line('  :upper()');
$l->type_line('s');
ok($l->wait_for(qr/^"A,B"$/m), '--line: a continuation line');
{
	my ($fh, $file) = File::Temp::tempfile(UNLINK => 1);
	print $fh "pa = 1\npb = pa + 1\nerror('boom ' .. pb)\n";
	close $fh;
	$l->run('load-buffer', '-b', 'p', $file);
	$l->run('paste-buffer', '-p', '-d', '-b', 'p', '-t', 't');
	$l->send_keys('Enter');
	ok($l->wait_for(qr/^error: \[\d+\]:3: boom 2$/m), '--line: a bracketed paste is one input (Enter runs it)');
}
$l->send_keys('C-d');
ok($l->wait_for(qr/__EXIT=0/, 10), '--line: Ctrl-D quits with 0');
done_testing();
