#!/usr/bin/perl
# The workbench at 120x40: the four titled panes, the queries strip, the
# progress line, the output pane and the input line, from the first
# screen; then a started query shows up in the strip.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Test::More;
use Tmux;

plan skip_all => 'tmux not installed' unless Tmux::available();
my $t = Tmux->new(cols => 120, rows => 40);

my $s = $t->wait_for(qr/late \/ bad records/);
like($s, qr/^\+-- watermark \(event time\) -+\+\+-- windows -+\+$/m, 'Watermark and Windows panes, titled, side by side');
like($s, qr/^\+-- checkpoint -+\+\+-- late \/ bad records -+\+$/m, 'Checkpoint and Late panes, titled, side by side');
like($s, qr/^queries: \(none yet/m, 'queries strip on the first row');
like($s, qr/^ progress: no query/m, 'progress line');
like($s, qr/^\+-- output -+\+$/m, 'output pane');
like($s, qr/\|Type :help for help, Tab to complete, Ctrl-D to quit\./, 'welcome in the output pane');
like($s, qr/\A(?:.*\n){39}> ?\n?\z/, 'input line with the prompt on the last row');
is(scalar(grep { length($_) > 120 } split /\n/, $s), 0, 'nothing wider than 120 columns');
like($s, qr/\(no data yet/, 'empty panes say (no data yet)');

$t->type_line('ms = spark.memoryStream("v INT")');
$t->type_line('q = ms:toDF().writeStream:format("memory"):queryName("numbers"):start()');
ok($t->wait_for(qr/^queries: 1\* numbers \[active\] batch -1/m), 'the strip lists the started query, focused');
ok($t->wait_for(qr/^ numbers  [0-9a-f]{8}  batch -1  in 0 rows/m), 'the progress line follows the focused query');
$t->type_line('ms:addData({1, 2, 3})');
$t->type_line(':step');
ok($t->wait_for(qr/^ numbers  [0-9a-f]{8}  batch 0  in 3 rows/m), 'after :step the progress line shows batch 0 with 3 input rows');
ok($t->wait_for(qr/^\|0 mem ->0\s+3 rows\s+commit/m), 'checkpoint pane: batch 0 offsets, sink rows, commit');

$t->type_line(':queries');
ok($t->wait_for(qr/^\|\*1  [0-9a-f]{8}  numbers\s+batch 0/m), ':queries lists the query, * marks the focus');
$t->type_line(':view scatter');
ok($t->wait_for(qr/event time vs processing time/), ':view scatter shows the scatter view');
$t->send_keys('F4');
ok($t->wait_for(qr/state rows per batch/), 'F4 shows the state-size graph');
$t->send_keys('F5');
ok($t->wait_for(qr/kafka partitions/), 'F5 shows the Kafka lanes');
$t->send_keys('F2');
ok($t->wait_for(qr/-- checkpoint --/), 'F2 goes back to the main view');

done_testing();
