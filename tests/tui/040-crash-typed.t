#!/usr/bin/perl
# TUTORIAL.md chapter 8 typed line by line, as a reader types it, into the
# workbench, where the file query runs in the background on the real
# clock: the crash armed with qf:crash is the one the next step runs.  The
# background trigger does not take the new file between the lines (an
# armed crash holds the query), so batch 1 dies at after-sink, the
# checkpoint shows its sink log without a commit, and the restart
# re-runs batch 1 and ends with 4 rows, none twice.  Then the control: a
# query with nothing armed does take a new file in the background.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Test::More;
use Time::HiRes qw(sleep);
use Tmux;

plan skip_all => 'tmux not installed' unless Tmux::available();
my $t = Tmux->new(cols => 120, rows => 40);
$t->wait_for(qr/late \/ bad records/);

# Type one line, wait until the output pane shows it was read, then pause
# as a reader would (the background trigger ticks meanwhile).
my $n = 0;
sub typed {
	my ($line) = @_;
	$t->type_line($line);
	my $probe = substr($line, 0, 40);
	ok($t->wait_for(qr/^\|> \Q$probe\E/m, 10), 'typed: ' . substr($line, 0, 60));
	sleep 0.4;
}

# Chapter 7's setup (the long chain on one line).
typed(q{function tempdir() local d = os.tmpname(); os.remove(d); os.execute("mkdir -p '" .. d .. "'"); return d end});
typed(q{inbox, outbox, ck = tempdir(), tempdir(), tempdir() .. "/checkpoint"});
typed(q{f = io.open(inbox .. "/.a.json", "w")});
typed(q{f:write('{"id":1,"word":"cat"}\n{"id":2,"word":"dog"}\n') f:close()});
typed(q{os.rename(inbox .. "/.a.json", inbox .. "/a.json")});
typed(q{qf = spark.readStream:schema("id INT, word STRING"):json(inbox).writeStream:format("json"):option("checkpointLocation", ck):start(outbox)});
typed(q{qf:processAllAvailable()});

# Chapter 8, line by line, in the text's order.
typed(q{qf:crash("after-sink")                 -- the sink writes, the commit does not});
typed(q{f = io.open(inbox .. "/.b.json", "w")});
typed(q{f:write('{"id":3,"word":"owl"}\n{"id":4,"word":"emu"}\n')});
typed(q{f:close()});
typed(q{os.rename(inbox .. "/.b.json", inbox .. "/b.json")});
sleep 1; # a reader's pause: plenty of background ticks
typed(q{print("last batch " .. qf.lastProgress.batchId .. ", active " .. tostring(qf.isActive))});
ok($t->wait_for(qr/^\|last batch 0, active true\s/m, 5),
   'the background trigger did not take b.json while the crash is armed');
typed(q{ok, err = pcall(qf.step, qf)});
typed(q{print(ok, err)});
ok($t->wait_for(qr/^\|false\s+simulated crash at 'after-sink' in batch 1\s/m, 5),
   'pcall(qf.step, qf) crashes batch 1 at after-sink, as the text says');
typed(q{for _, b in ipairs(qf:checkpoint().batches) do print("batch", b.batchId, "sink log", b.sinkLog, "committed", b.committed) end});
ok($t->wait_for(qr/^\|batch\s+1\s+sink log\s+true\s+committed\s+false\s/m, 5),
   'batch 1: sink log written, no commit');
typed(q{qf = qf:restart()});
typed(q{qf:processAllAvailable()});
ok($t->wait_for(qr/re-ran batch 1 with offsets\/1/, 5), 'the restart re-runs batch 1 (checkpoint pane)');
typed(q{ids, seen, dups = {}, {}, 0});
typed(q{for _, r in ipairs(spark.read:schema("id INT, word STRING"):json(outbox):collect()) do ids[#ids + 1] = r.id end});
typed(q{for _, id in ipairs(ids) do if seen[id] then dups = dups + 1 end seen[id] = true end});
typed(q{print(string.format("expected 4 rows, got %d, duplicates %d, missing %d", #ids, dups, 4 - #ids + dups))});
ok($t->wait_for(qr/^\|expected 4 rows, got 4, duplicates 0, missing 0\s/m, 5),
   'the oracle line: 4 rows, no duplicate, none missing');

# The control: nothing armed, the background trigger takes a new file.
typed(q{f = io.open(inbox .. "/.c.json", "w") f:write('{"id":5,"word":"yak"}\n') f:close()});
typed(q{os.rename(inbox .. "/.c.json", inbox .. "/c.json")});
sleep 1;
typed(q{print("now at batch " .. qf.lastProgress.batchId)});
ok($t->wait_for(qr/^\|now at batch 2\s/m, 5), 'without an armed crash the background trigger ran batch 2');

# The same order with the workbench command: :crash arms, a file
# arrives, nothing runs until :step, and :step crashes.
typed(q{:crash before-commit});
ok($t->wait_for(qr/crash armed at before-commit for the next batch \(it waits for :step\)/, 5), ':crash arms and says the batch waits for :step');
typed(q{f = io.open(inbox .. "/.d.json", "w") f:write('{"id":6,"word":"gnu"}\n') f:close()});
typed(q{os.rename(inbox .. "/.d.json", inbox .. "/d.json")});
sleep 1;
typed(q{print("before step: batch " .. qf.lastProgress.batchId .. ", active " .. tostring(qf.isActive))});
ok($t->wait_for(qr/^\|before step: batch 2, active true\s/m, 5), 'd.json waits for :step');
typed(q{:step});
ok($t->wait_for(qr/simulated crash at 'before-commit' in batch 3/, 5), ':step runs batch 3 and it crashes before its commit');

$t->type_line(':quit');
ok($t->wait_for(qr/__EXIT=0/), ':quit exits 0');
done_testing();
