#!/usr/bin/perl
# A windowed query with a watermark, typed at the prompt with a manual
# clock and a memory stream (the guide's word count, 10-minute windows, a
# 10-minute delay): the window rows and their states, the watermark value,
# the late row that was dropped (with the window it missed and the
# watermark that excluded it) and the commit of each batch.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Test::More;
use Tmux;

plan skip_all => 'tmux not installed' unless Tmux::available();
my $t = Tmux->new(cols => 120, rows => 40);
$t->wait_for(qr/late \/ bad records/);

$t->type_line('spark.clock:manual("2026-01-01 12:00:00")');
$t->type_line('ms = spark.memoryStream("ts TIMESTAMP, word STRING")');
$t->type_line('df = ms:toDF():withWatermark("ts", "10 minutes"):groupBy(F.window("ts", "10 minutes"), "word"):count()');
$t->type_line('q = df.writeStream:outputMode("update"):format("memory"):queryName("words"):start()');
$t->type_line('ms:addData({{"2026-01-01 12:07:00", "dog"}, {"2026-01-01 12:08:00", "owl"}})');
$t->type_line(':step');
my $s = $t->wait_for(qr/\|12:00:00-12:10:00 owl/);
like($s, qr/\|\|12:00:00-12:10:00 dog\s+\[1\]\s+(?:UPDATED|OPEN)/, 'batch 0: window row for dog');
like($s, qr/\|\|12:00:00-12:10:00 owl\s+\[1\]\s+(?:UPDATED|OPEN)/, 'batch 0: window row for owl');

$t->type_line('ms:addData({{"2026-01-01 12:25:00", "cat"}})');
$t->type_line('q:processAllAvailable()');
$s = $t->wait_for(qr/watermark 12:15:00.*\n(?:.*\n)*.*12:20:00-12:30:00 cat/);
like($s, qr/-- windows  watermark 12:15:00 --/, 'the Windows pane shows the watermark value');
like($s, qr/W watermark 12:15:00/, 'the Watermark pane shows it on the event-time axis');
like($s, qr/M max event 12:25:00/, 'and the max event time seen');
like($s, qr/\|\|12:20:00-12:30:00 cat\s+\[1\]\s+(?:UPDATED|OPEN)/, 'the new window row for cat');
like($s, qr/\|\|12:00:00-12:10:00 dog\s+\[1\]\s+(?:OPEN|EVICTED)/, 'dog is no longer UPDATED');

$t->type_line('ms:addData({{"2026-01-01 12:04:00", "donkey"}})');
$t->type_line(':step');
$s = $t->wait_for(qr/word=donkey/);
like($s, qr/\|b\d+ 12:04:00 word=donkey /, 'the Late pane shows the dropped row: batch, event time, its own fields');
like($s, qr/word=donkey missed \[12:00:00,12:10:00\)/, 'the window it missed');
like($s, qr/\|\|\s+wm 12:15:00\s+\|$/m, 'and the watermark that excluded it, wrapped whole');
like($s, qr/late dropped: \[12:00:00,12:10:00\) 1/, 'the Windows pane counts it for its window');
like($s, qr/late dropped 1/, 'the progress line counts it');
unlike($s, qr/donkey\s+\[1\]/, 'no window row for the dropped row');
for my $b (0 .. 3) {
	like($s, qr/^\|$b mem \d*->\d+\s+wm \S+\s+v\d+\s+\d+ rows\s+commit/m, "checkpoint pane: batch $b committed");
}
like($s, qr/sink check: expected \d+ rows, got \d+, duplicates 0, missing 0/, 'the sink check line');

$t->type_line(':quit');
ok($t->wait_for(qr/quit anyway\? \(y\/n\)/), ':quit asks while the query runs');
$t->type_line('y');
ok($t->wait_for(qr/__EXIT=0/), 'y quits with status 0');
done_testing();
