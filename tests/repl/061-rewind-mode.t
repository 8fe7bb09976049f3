#!/usr/bin/perl
# :open of a folder from another session knows the query's output mode
# (issue 20, gap 4): the query records it beside its state schema
# (state/<op>/0/_metadata/schema, "outputMode ..."; Spark's checkpoint
# has it nowhere), so an Append query's evicted windows come back EMITTED
# (and Update's EVICTED) even with a memory sink, and the banner says the
# mode was recorded.  A checkpoint without it (an older layout) gets a
# guess from the sink, and the banner says it is a guess.
use strict;
use warnings;
use Test::More;
use File::Temp qw(tempdir);
use FindBin;
use lib "$FindBin::Bin/lib";
use RunSl;

my $dir = tempdir(CLEANUP => 1);
system('cp', '-r', "$FindBin::Bin/../fixtures/state-v1", "$dir/v1") == 0 or die "cp: $?";
my $run = <<"EOF2";
spark.clock:manual("2026-01-01 12:00:00")
ms = spark.memoryStream("ts TIMESTAMP, word STRING")
df = ms:toDF():withWatermark("ts", "10 minutes"):groupBy(F.window("ts", "10 minutes"), "word"):count()
a = df.writeStream:outputMode("append"):format("memory"):queryName("app"):option("checkpointLocation", "$dir/app"):start()
u = df.writeStream:outputMode("update"):format("memory"):queryName("upd"):option("checkpointLocation", "$dir/upd"):start()
ms:addData({{"2026-01-01 12:07:00", "dog"}})
a:step() u:step()
ms:addData({{"2026-01-01 12:25:00", "cat"}})
a:step() u:step()
a:step() u:step()
a:stop() u:stop()
EOF2
my ($out, $err) = run_sl($run, '--plain');
is($err, '', 'the queries ran');
like(scalar(`cat $dir/app/state/0/0/_metadata/schema`), qr/^outputMode Append$/m, 'the Append query recorded its mode');
like(scalar(`cat $dir/upd/state/0/0/_metadata/schema`), qr/^outputMode Update$/m, 'the Update query its own');

# a second process: no live query, only the folders
($out, $err) = run_sl(":open $dir/app\n:open $dir/upd\n:open $dir/v1\n", '--plain');
my @parts = split /^(?=rewound )/m, $out;
my ($app) = grep { /^rewound \S+\/app / } @parts;
my ($upd) = grep { /^rewound \S+\/upd / } @parts;
my ($v1) = grep { /^rewound \S+\/v1 / } @parts;
like($app, qr/^REWOUND to batch 2 of 2, output mode Append \(recorded\) \x{e2}\x{80}\x{94} :live/m, ':open app: the banner says the mode was recorded');
like($app, qr/^\|12:00:00-12:10:00 dog \[1\]\s+EMITTED/m, 'Append: the evicted window was emitted');
like($upd, qr/^REWOUND to batch 2 of 2, output mode Update \(recorded\) /m, ':open upd: Update, recorded');
like($upd, qr/^\|12:00:00-12:10:00 dog \[1\]\s+EVICTED/m, 'Update: the window evicted (emitted when it changed)');
like($v1, qr/^REWOUND to batch 25 of 25, output mode Update \(a guess: not recorded\) /m,
     ':open of an older checkpoint: the banner says the mode is a guess');
is($err, '', 'nothing on stderr');
done_testing();
