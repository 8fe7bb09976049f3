#!/usr/bin/perl
# The Kafka view (F5) shows each lane's topic/partition name whole: a name
# longer than the old 20-column field is no longer cut, lanes stay a table
# when they fit a row, and on a narrow screen a lane's line flows onto the
# next row (pane_flow) instead of losing its name or its offsets.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Test::More;
use Tmux;
use LessonScreen qw();

plan skip_all => 'tmux not installed' unless Tmux::available();
*pane_until = \&LessonScreen::pane_until;

my $long = 'clickstream-events-eu-west-1-production-tier-2-partitioned-by-user-ids';    # 70 characters
my $t = Tmux->new(cols => 120, rows => 40);
ok($t->wait_for(qr/late \/ bad records/, 10), 'the workbench is up');
$t->type_line(qq{kafka.createTopic("$long", 1)});
$t->type_line('kafka.createTopic("t", 1)');
$t->type_line(qq{for i = 1, 3 do kafka.produce("$long", "v" .. i) end});
$t->type_line('kafka.produce("t", "w")');
$t->type_line(qq{qk = spark.readStream:format("kafka"):option("subscribe", "$long,t"):option("startingOffsets", "earliest"):load().writeStream:format("memory"):queryName("k"):start()});
$t->type_line('qk:processAllAvailable()');
$t->type_line('spark.table("k"):count()');
ok($t->wait_for(qr/^\|4\s+\|$/m, 20), 'the Kafka query read 4 rows');
$t->send_keys('F5');
my $p = pane_until($t, 'kafka partitions', qr/\Q$long\E\/0/, 20);
ok($p, 'the 72-column lane name is shown whole');
like($p, qr/\Q$long\E\/0 end 3\s+\+3\s+b0\s+#/, 'its offsets and bar follow on the same row');
like($p, qr/^t\/0 {70}end 1\s+\+1\s+b0\s+#/m, 'the short lane is padded to the same columns (a table)');

# 80 columns (the smallest screen): the lane's line flows over two rows,
# the name still whole (it was cut to 20 columns before)
$t->resize(80, 30);
$p = pane_until($t, 'kafka partitions', qr/\Q$long\E\/0 end 3\s*\n  \+3 b0\s*\n/, 20);
ok($p, 'at 80 columns the name and its end offset fill a row, the rest flows onto the next, indented');
like($p, qr/^t\/0 end 1 \+1 b0\s*$/m, 'the short lane, packed (the table no longer fits a row)');
$t->type_line('qk:stop()');

# a topic name with dots (Kafka allows '.', '_', '-'): a lane's rows are
# this batch's end minus its start, found by name, not by a dotted path
$t->resize(120, 40);
$t->type_line('kafka.createTopic("orders.v1", 1)');
$t->type_line('for i = 1, 3 do kafka.produce("orders.v1", "o" .. i) end');
$t->type_line('qd = spark.readStream:format("kafka"):option("subscribe", "orders.v1"):option("startingOffsets", "earliest"):load().writeStream:format("memory"):queryName("d"):start()');
$t->type_line('qd:processAllAvailable()');
$t->type_line('for i = 4, 5 do kafka.produce("orders.v1", "o" .. i) end');
$t->type_line('qd:processAllAvailable()');
$t->type_line('spark.table("d"):count()');
ok($t->wait_for(qr/^\|5\s+\|$/m, 20), 'the dotted topic query read 5 rows in two batches');
$p = pane_until($t, 'kafka partitions', qr/orders\.v1\/0 end 5/, 20);
like($p, qr/orders\.v1\/0 end 5\s+\+2\s+b1\b/, 'orders.v1/0: batch 1 read 2 rows (3..5), not 5');
$t->type_line('qd:stop()');
$t->type_line(':quit');
ok($t->wait_for(qr/__EXIT=0/, 10), 'quits with 0');
done_testing();
