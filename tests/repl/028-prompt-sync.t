#!/usr/bin/perl
# The checkpoint writer runs behind the batches (query_batch.c, "what
# waits"): spark.clock:advance does not wait for a batch's state delta and
# commits/N to be durable, so back-to-back batches overlap their fsyncs.
# What a learner sees must still be on disk: the console syncs every query's
# checkpoint when a line returns to the prompt.  One line runs 30 batches
# (1-30; batch 0 ran at start) of a grouped count with a checkpointLocation;
# the next line, run at once, finds commits/30 and state version 31 in place (without the sync at the
# prompt the writer is still about a batch behind and they are missing).
# The same for a second round of batches on the same query, and after
# q:stop().
use strict;
use warnings;
use Test::More;
use File::Temp qw(tempdir);
use FindBin;
use lib "$FindBin::Bin/lib";
use RunSl;

my $dir = tempdir(CLEANUP => 1);
my $ck = "$dir/ck";
my $in = <<"EOF_IN";
spark.clock:manual("2026-01-01 12:00:00")
q = spark.readStream:format("rate"):option("rowsPerSecond", 50):load():selectExpr("value % 7 AS k"):groupBy("k"):count().writeStream:format("noop"):outputMode("update"):option("checkpointLocation", "$ck"):trigger{processingTime = "1 second"}:start()
for i = 1, 30 do spark.clock:advance("1 second") end
function has(p) local f = io.open("$ck/" .. p) if f then f:close() return true end return false end
print(q.lastProgress.batchId, has("commits/30"), has("offsets/30"), has("state/0/0/31.delta"), has("offsets/31"))
for i = 1, 30 do spark.clock:advance("1 second") end
print(q.lastProgress.batchId, has("commits/60"), has("state/0/0/61.delta"))
q:stop()
print(has("commits/60"), has("offsets/61"))
EOF_IN
my ($out, $err, $st) = run_sl($in, '--plain');
is($st, 0, 'the session exits 0') or diag("stderr: $err");
my @l = split /\n/, $out;
is($l[0], "30\ttrue\ttrue\ttrue\tfalse",
   'back at the prompt after batches 1-30: commits/30, offsets/30 and state version 31 are on disk')
	or diag("out: $out\nstderr: $err");
is($l[1], "60\ttrue\ttrue", 'the next line of 30 batches: commits/60 and state version 61 too')
	or diag("out: $out");
is($l[2], "true\tfalse", 'after stop: commits/60, and no batch 61 was planned') or diag("out: $out");
done_testing();
