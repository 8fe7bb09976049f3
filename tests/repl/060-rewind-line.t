#!/usr/bin/perl
# :rewind in line mode (issue 20 item 3): with no screen, `:rewind N`
# prints the panes the workbench would show after batch N, as text, drawn
# by the same pane code: the banner, the progress line, the windows with
# their values and states, the watermark, the checkpoint rows, the late
# rows.  The errors are one line each and leave what was shown: a batch
# not committed, a batch retention purged (minBatchesToRetain 2), a
# bad N, a query whose temporary checkpoint went with its stop, a
# folder that is no checkpoint.
use strict;
use warnings;
use Test::More;
use File::Temp qw(tempdir);
use FindBin;
use lib "$FindBin::Bin/lib";
use RunSl;

my $dir = tempdir(CLEANUP => 1);
# a checkpoint of an older layout (no state schema recorded), copied: reading never writes, but
# the fixture stays untouched whatever happens
system('cp', '-r', "$FindBin::Bin/../fixtures/state-v1", "$dir/v1") == 0 or die "cp: $?";
my $in = <<"EOF2";
spark.clock:manual("2026-01-01 12:00:00")
ms = spark.memoryStream("ts TIMESTAMP, word STRING")
df = ms:toDF():withWatermark("ts", "10 minutes"):groupBy(F.window("ts", "10 minutes"), "word"):count()
q = df.writeStream:outputMode("update"):format("memory"):queryName("words"):option("checkpointLocation", "$dir/ck"):start()
ms:addData({{"2026-01-01 12:07:00", "dog"}, {"2026-01-01 12:08:00", "owl"}})
q:step()
ms:addData({{"2026-01-01 12:25:00", "cat"}, {"2026-01-01 12:09:00", "dog"}})
q:step()
q:step()
ms:addData({{"2026-01-01 12:04:00", "donkey"}})
q:step()
:rewind 1
:rewind 2
:rewind 3
:rewind 9
:rewind x
:live
q:stop()
:rewind 0
:open $dir/nothing
spark.conf:set("spark.sql.streaming.minBatchesToRetain", "2")
t = df.writeStream:outputMode("update"):format("memory"):queryName("short"):option("checkpointLocation", "$dir/short"):start()
for i = 1, 5 do ms:addData({{string.format("2026-01-01 13:%02d:00", i), "emu"}}) t:step() end
:rewind 0
:rewind 4
t:stop()
tmp = df.writeStream:outputMode("update"):format("memory"):queryName("tmp"):start()
tmp:stop()
:rewind
:open $dir/v1
EOF2
my ($out, $err) = run_sl($in, '--plain');
my @parts = split /^(?=rewound |error: )/m, $out;
my %at;
for (@parts) { $at{$1} = $_ if /^rewound words to batch (\d+) of 3/ }

like($at{1}, qr/^REWOUND to batch 1 of 3 \x{e2}\x{80}\x{94} :live to return/m, ':rewind 1: the banner first');
like($at{1}, qr/^ words  \S+  batch 1  in 2 rows  wm 11:58:00/m, 'the progress line of batch 1');
like($at{1}, qr/^\|12:00:00-12:10:00 dog \[2\]\s+UPDATED\s*\|/m, 'batch 1: dog counted twice, updated in it');
like($at{1}, qr/^\|12:00:00-12:10:00 owl \[1\]\s+OPEN\s*\|/m, 'owl untouched: open');
like($at{1}, qr/^\|12:20:00-12:30:00 cat \[1\]\s+OPEN\s*\|/m, 'cat: a new window, open');
like($at{1}, qr/^\|1 mem 0->1 wm 11:58:00 v2\s+2 rows\s+commit/m, 'its checkpoint row');
unlike($at{1}, qr/^\|2 mem/m, 'and no later batch');
like($at{2}, qr/^\|12:00:00-12:10:00 dog \[2\]\s+EVICTED/m, ':rewind 2: the no-data batch evicted [12:00, 12:10)');
like($at{2}, qr/W watermark 12:15:00/, 'with the watermark for the next batch');
like($at{3}, qr/^\|b3 12:04:00 word=donkey missed \[12:00:00,12:10:00\)/m, ':rewind 3: the late row');
like($at{3}, qr/late dropped: \[12:00:00,12:10:00\) 1/, 'counted for its window');
like($out, qr/^error: :rewind: batch 9 is not committed in '[^']*\/ck' \(committed: 0\.\.3\)$/m, 'batch 9: not committed');
like($out, qr/^error: :rewind: N must be a batch id/m, ':rewind x: a bad N');
like($out, qr/^live: the panes follow the queries again$/m, ':live');
like($out, qr/^rewound words to batch 0 of 3/m, ':rewind on the stopped query');
like($out, qr/^error: :open: cannot open '[^']*\/nothing': No such file or directory$/m, ':open of a missing folder');
like($out, qr/^error: :rewind: batch 0 was purged by retention \(oldest kept: \d+; spark\.sql\.streaming\.minBatchesToRetain\)$/m,
     'a purged batch');
like($out, qr/^rewound short to batch 4 of 4/m, 'its last batch is still there');
like($out, qr/^error: :rewind: query 'tmp' has no checkpoint left \(a temporary one is deleted when the query stops/m,
     'a temporary checkpoint, gone with the stop');
like($out, qr/^rewound \S+\/v1 to batch 25 of 25/m, ':open of an older checkpoint: its timeline');
like($out, qr/^\|state of operator 0 not shown: failed to read the state schema of operator 0:/m,
     'and one line saying why its state is not shown');
is($err, '', 'nothing on stderr');
done_testing();
