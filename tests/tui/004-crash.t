#!/usr/bin/perl
# Crash and restart on the screen: a query with a checkpoint, :crash
# after-sink, the batch dies after its sink wrote and before its commit;
# :restart re-runs it from offsets/N, the sink skips the batch it already
# has, and the Checkpoint pane shows the crash, the replay and a sink
# check with no duplicate.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use File::Temp qw(tempdir);
use Test::More;
use Tmux;

plan skip_all => 'tmux not installed' unless Tmux::available();
my $t = Tmux->new(cols => 120, rows => 40);
my $ck = tempdir(CLEANUP => 1) . "/ckpt";
$t->wait_for(qr/late \/ bad records/);

$t->type_line('spark.clock:manual("2026-01-01 12:00:00")');
$t->type_line('ms = spark.memoryStream("v INT")');
$t->type_line(qq{q = ms:toDF().writeStream:format("memory"):queryName("numbers"):option("checkpointLocation", "$ck"):start()});
$t->type_line('ms:addData({1, 2})');
$t->type_line(':step');
ok($t->wait_for(qr/^\|0 mem ->0\s+2 rows\s+commit/m), 'batch 0 committed');

$t->type_line(':crash after-sink');
ok($t->wait_for(qr/crash armed at after-sink/), ':crash after-sink arms the crash');
$t->type_line('ms:addData({3, 4})');
$t->type_line(':step');
ok($t->wait_for(qr/^\|1 mem 0->1 .*CRASH after-sink/m, 5), 'the Checkpoint pane marks batch 1 with CRASH');
$t->type_line(':restart');
ok($t->wait_for(qr/restarted numbers: new run/, 5), ':restart starts a new run');
$t->type_line(':step');
ok($t->wait_for(qr/re-r\S* batch 1/, 5), 'the replay of batch 1 is shown');
ok($t->wait_for(qr/^\|1 mem 0->1 .*CRASH after-sink\s.*\n\|1 mem 0->1 .*sink skipped commit \(re-run\)/m, 5), 'batch 1 commits after the restart: the crashed run and the re-run, one line each');
ok($t->wait_for(qr/sink check: expected 4 rows, got 4, duplicates 0, missing 0/, 5),
   'the sink check: expected 4, got 4, no duplicates, nothing missing');
$t->type_line('print(#spark.table("numbers"):collect())');
ok($t->wait_for(qr/^\|?4\s*\|?\s*$/m, 5), 'the memory table holds the 4 rows once');

$t->type_line('q:stop()');
$t->type_line(':quit');
ok($t->wait_for(qr/__EXIT=0/), ':quit exits 0');
done_testing();
