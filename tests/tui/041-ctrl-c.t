#!/usr/bin/perl
# Ctrl-C in the workbench stops what the learner waits on, not the query
# (issue 13, item 7).  A foreachBatch function spins in its second call;
# Ctrl-C during q:processAllAvailable() ends the wait with one line, the
# batch is aborted (nothing committed), the query stays active, the next
# processAllAvailable re-runs the same batch, and the sink check (the
# learner's, over what the function kept per batch id as Spark advises,
# and the Checkpoint pane's) shows no row lost or doubled.
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

sub typed {
	my ($line, $name) = @_;
	$t->type_line($line);
	my $probe = substr($line, 0, 40);
	ok($t->wait_for(qr/^\|> \Q$probe\E/m, 10), $name // 'typed: ' . substr($line, 0, 60));
}

typed(q{ms = spark.memoryStream("id INT")});
typed(q{got, calls = {}, 0});
typed(q{q = ms:toDF().writeStream:foreachBatch(function(df, id) calls = calls + 1 local rows = {} for _, r in ipairs(df:collect()) do rows[#rows + 1] = r.id end if calls == 2 then local t0 = os.clock() while os.clock() - t0 < 60 do end end got[id] = rows end):start()});
typed(q{ms:addData({1, 2}) q:processAllAvailable()});
ok($t->wait_for(qr/^\|\s*0 .*commit/m, 10), 'batch 0 committed');

typed(q{ms:addData({3, 4}) q:processAllAvailable()}, 'the slow batch starts');
sleep 1; # the function is spinning now
$t->send_keys('C-c');
my $s = $t->wait_for(qr/^\|interrupted: batch 1 aborted, nothing committed; the query is still active and re-runs it next\s*\|$/m, 10);
ok($s, 'Ctrl-C ends processAllAvailable with one line: batch 1 aborted, the query still active');
unlike($s, qr/stack traceback|interrupted!|^\|error:/m, 'no traceback, no error line');

typed(q{print("active", q.isActive, "exception", q.exception, "calls", calls, "last", q.lastProgress.batchId)});
ok($t->wait_for(qr/^\|active\s+true\s+exception\s+nil\s+calls\s+2\s+last\s+0\s/m, 5),
   'the query is still active, with no exception; batch 0 is the last completed');

typed(q{q:processAllAvailable()}, 'processAllAvailable again');
typed(q{print("calls", calls, "last", q.lastProgress.batchId)});
ok($t->wait_for(qr/^\|calls\s+3\s+last\s+1\s/m, 5), 'the next batch re-ran batch 1 (a third call, batch 1 completed)');
ok($t->wait_for(qr/re-ran batch 1 with offsets\/1/, 5), 'the Checkpoint pane shows the re-run of batch 1');

typed(q{n, seen, dups = 0, {}, 0});
typed(q{for id, rows in pairs(got) do for _, v in ipairs(rows) do n = n + 1 if seen[v] then dups = dups + 1 end seen[v] = true end end});
typed(q{print(string.format("expected 4 rows, got %d, duplicates %d, missing %d", n, dups, 4 - n + dups))});
ok($t->wait_for(qr/^\|expected 4 rows, got 4, duplicates 0, missing 0\s/m, 5),
   "the learner's sink check: no row lost or doubled");
ok($t->wait_for(qr/sink check: expected 4 rows, got 4, duplicates 0, missing 0/, 5),
   "the Checkpoint pane's sink check agrees");

# In the background: the idle loop runs a batch whose function spins;
# Ctrl-C reaches it there too, the batch is aborted, the workbench is
# back, and the query waits for the learner to run it again.
typed(q{q:stop()});
typed(q{ms2, bgcalls = spark.memoryStream("id INT"), 0});
typed(q{q2 = ms2:toDF().writeStream:queryName("slow"):foreachBatch(function(df, id) bgcalls = bgcalls + 1 if bgcalls == 1 then local t0 = os.clock() while os.clock() - t0 < 60 do end end end):start()});
typed(q{ms2:addData({5})}, 'data for the background trigger');
sleep 1.5; # the idle loop's batch is spinning now
$t->send_keys('C-c');
ok($t->wait_for(qr/^\|\[slow\] batch 0 interrupted: aborted, nothing committed; it re-runs at the next processAllAvailable\(\) or step\(\)/m, 10),
   'Ctrl-C stops a background batch: aborted, and the query says how it goes on');
typed(q{print("bg active", q2.isActive, "calls", bgcalls)});
ok($t->wait_for(qr/^\|bg active\s+true\s+calls\s+1\s/m, 5), 'the workbench is back, the query still active');
typed(q{q2:processAllAvailable() print("bg calls", bgcalls, "last", q2.lastProgress.batchId)});
ok($t->wait_for(qr/^\|bg calls\s+2\s+last\s+0\s/m, 5), 'processAllAvailable re-runs batch 0');

$t->type_line('q2:stop()');
$t->type_line(':quit');
ok($t->wait_for(qr/__EXIT=0/), ':quit exits 0');
done_testing();
