#!/usr/bin/perl
# :rewind in the readline REPL without the screen (`streamlab --line` on
# a terminal, issue 20 item 3): it prints the panes the workbench would
# show after the batch, as text, between the lines typed.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use File::Temp qw(tempdir);
use Test::More;
use Tmux;

plan skip_all => 'tmux not installed' unless Tmux::available();
my $dir = tempdir(CLEANUP => 1);
my $t = Tmux->new(cols => 110, rows => 60, args => ['--line']);
$t->wait_for(qr/Ctrl-D to quit/);
$t->type_line('spark.clock:manual("2026-01-01 12:00:00")');
$t->type_line('ms = spark.memoryStream("ts TIMESTAMP, word STRING")');
$t->type_line(qq{q = ms:toDF():withWatermark("ts", "10 minutes"):groupBy(F.window("ts", "10 minutes"), "word"):count().writeStream:outputMode("update"):format("memory"):queryName("words"):trigger{processingTime = "1 minute"}:option("checkpointLocation", "$dir/ck"):start()});
$t->type_line('ms:addData({{"2026-01-01 12:07:00", "dog"}, {"2026-01-01 12:08:00", "owl"}}) print(q:step())');
$t->wait_for(qr/^true$/m);
$t->type_line('ms:addData({{"2026-01-01 12:09:00", "dog"}}) print("two", q:step())');
$t->wait_for(qr/^two\s+true$/m);
$t->type_line(':rewind 0');
my $s = $t->wait_for(qr/^\+-- late \/ bad records/m);
like($s, qr/^REWOUND to batch 0 of 1 \x{2014} :live to return/m, 'the banner');
like($s, qr/^\|12:00:00-12:10:00 dog \[1\]\s+OPEN/m, 'batch 0: dog counted once');
like($s, qr/^\|0 mem ->0\s+wm -\s+v1\s+2 rows\s+commit/m, 'its checkpoint row');
unlike($s, qr/^\|1 mem/m, 'no later batch');
$t->type_line(':live');
ok($t->wait_for(qr/^live: the panes follow the queries again$/m), ':live');
$t->type_line('q:stop()');
$t->send_keys('C-d');
ok($t->wait_for(qr/__EXIT=0/), 'Ctrl-D quits');
done_testing();
