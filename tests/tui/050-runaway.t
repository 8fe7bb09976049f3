#!/usr/bin/perl
# Lua with bounds in the workbench (issue 16, finding 8).  A foreachBatch
# function that never returns, run by a background trigger (the idle
# loop's batch), no longer freezes the prompt for good: the panes keep
# drawing, and a line typed meanwhile (q:stop()) makes the batch yield
# (aborted, nothing committed, as after Ctrl-C) and then runs.  The same
# function under q:awaitTermination(2) ends the wait in about 2 s with
# false, the query still active.  A loop at the prompt that allocates past
# streamlab.lua.memoryLimit prints one "not enough memory" line and the
# next line works.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Test::More;
use Time::HiRes qw(sleep time);
use Tmux;

plan skip_all => 'tmux not installed' unless Tmux::available();
my $t = Tmux->new(cols => 120, rows => 40);
$t->wait_for(qr/late \/ bad records/);

sub typed {
	my ($line, $name) = @_;
	$t->type_line($line);
	my $probe = substr($line, 0, 40);
	ok($t->wait_for(qr/^\|> \Q$probe\E/m, 10), $name // 'typed: ' . substr($line, 0, 60));
}

# a runaway function, started by the background trigger
typed(q{ms, spins = spark.memoryStream("id INT"), 0});
typed(q{q = ms:toDF().writeStream:queryName("spin"):foreachBatch(function(df, id) spins = spins + 1 while true do end end):start()});
typed(q{ms:addData({1})}, 'data for the background trigger');
ok($t->wait_for(qr/a background batch is running: Enter or Ctrl-C stops it/, 10),
   'the idle loop runs the spinning batch; the workbench still draws and says how to stop it');
sleep 1; # it spins
my $t0 = time;
$t->type_line('q:stop()');
ok($t->wait_for(qr/^\|\[spin\] batch 0 interrupted: aborted, nothing committed/m, 10),
   'a typed line makes the background batch yield: aborted, nothing committed');
typed(q{print("active", q.isActive, "spins", spins)});
my $s = $t->wait_for(qr/^\|active\s+false\s+spins\s+1\s/m, 10);
ok($s, 'and the typed q:stop() ran: the query is stopped');
my $took = time - $t0;
ok($took < 10, sprintf('the prompt is back within a few seconds (%.1f s)', $took));
unlike($s, qr/^\|error:/m, 'no error line');

# awaitTermination(2) at the prompt with the same function
typed(q{ms2 = spark.memoryStream("id INT")});
typed(q{q2 = ms2:toDF().writeStream:queryName("spin2"):foreachBatch(function(df, id) while true do end end):start()});
$t0 = time;
typed(q{ms2:addData({1}) c0 = os.clock() r = q2:awaitTermination(2) print("await", r, q2.isActive, os.clock() - c0 < 3)});
ok($t->wait_for(qr/^\|await\s+false\s+true\s+true\s/m, 10),
   'awaitTermination(2) returns false, the query still active');
$took = time - $t0;
ok($took < 8, sprintf('in about 2 s (%.1f s, typing included)', $took));
typed(q{q2:stop()});

# the allocation loop at the prompt: one error, the REPL lives
typed(q{spark.conf:set("streamlab.lua.memoryLimit", "64m")});
typed(q{local t = {} for i = 1, 1e9 do t[i] = ("x"):rep(100) .. i end});
$s = $t->wait_for(qr/^\|error: not enough memory\s*\|$/m, 60);
ok($s, 'one line: error: not enough memory');
typed(q{print("alive", #t > 100000)});
ok($t->wait_for(qr/^\|alive\s+true\s/m, 10), 'the next line works (the table the loop built is still there)');
typed(q{t = nil collectgarbage() print("freed", collectgarbage("count") < 8192)});
ok($t->wait_for(qr/^\|freed\s+true\s/m, 10), 'collected: the memory is back');
my @err = $t->screen =~ /not enough memory/g;
is(scalar @err, 1, 'the error was printed once');

$t->type_line(':quit');
ok($t->wait_for(qr/__EXIT=0/), ':quit exits 0');
done_testing();
