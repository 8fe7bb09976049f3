#!/usr/bin/perl
# The workbench rewound (issue 20 item 3): a windowed count with a
# watermark, stepped batch by batch at the prompt, its panes captured live
# after each batch; then `:rewind k` for every k must show what the panes
# showed live then, rebuilt from the checkpoint (offsets/k, commits/k, the
# state at version k+1 and before, the sink's rows): the same windows with
# the same values and states, the same watermark pane (W, M, the marks of
# the batch's rows, the late row's x), the same checkpoint rows and the
# same late rows.  A banner says the screen is historical; Alt-Left and
# Alt-Right step; `:rewind` to a batch that is not committed gives one line
# and keeps the screen; `:live` returns.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use File::Temp qw(tempdir);
use Test::More;
use Tmux;
use LessonScreen qw();

plan skip_all => 'tmux not installed' unless Tmux::available();
*pane = \&LessonScreen::pane;


my $dir = tempdir(CLEANUP => 1);
my $t = Tmux->new(cols => 120, rows => 40);
$t->settled(qr/late \/ bad records/);

$t->type_line('spark.clock:manual("2026-01-01 12:00:00")');
$t->type_line('ms = spark.memoryStream("ts TIMESTAMP, word STRING")');
$t->type_line('df = ms:toDF():withWatermark("ts", "10 minutes"):groupBy(F.window("ts", "10 minutes"), "word"):count()');
$t->type_line(qq{q = df.writeStream:outputMode("update"):format("memory"):trigger{processingTime = "1 minute"}:queryName("words"):option("checkpointLocation", "$dir/ck"):start()});

# what each :step adds first (undef: a no-data batch)
my @arrivals = (
	'{{"2026-01-01 12:07:00", "dog"}, {"2026-01-01 12:08:00", "owl"}}',
	'{{"2026-01-01 12:25:00", "cat"}, {"2026-01-01 12:09:00", "dog"}}',
	undef,   # the watermark (12:15) closes [12:00, 12:10): EVICTED
	'{{"2026-01-01 12:04:00", "donkey"}, {"2026-01-01 12:22:00", "owl"}}',
	'{{"2026-01-01 12:31:00", "dog"}}',
);
my (%live, $s);
for my $k (0 .. $#arrivals) {
	$t->type_line("ms:addData($arrivals[$k])") if defined $arrivals[$k];
	$t->type_line(':step');
	$s = $t->settled(qr/^\|\s*$k mem .*commit/m);
	ok($s, "live: batch $k committed");
	$live{$k} = { map { $_ => pane($s, $_) } qw(windows watermark checkpoint late) };
}
like($live{2}{windows}, qr/12:00:00-12:10:00 dog\s+\[2\]\s+EVICTED/, 'live batch 2: dog [12:00,12:10) evicted with its count');
like($live{3}{late}, qr/word=donkey/, 'live batch 3: the donkey dropped as late');

for my $k (reverse 0 .. $#arrivals) {
	$t->type_line(":rewind $k");
	$s = $t->settled(qr/REWOUND to batch $k of 4/);
	ok($s, ":rewind $k: the banner says the screen is historical");
	for my $p (qw(windows watermark checkpoint late)) {
		is(pane($s, $p), $live{$k}{$p}, ":rewind $k: the $p pane as it was live");
	}
}
like($s, qr/REWOUND to batch 0 of 4 \x{2014} :live to return/, 'the banner names the way back');

# step keys
$t->send_keys('M-Right');
$s = $t->settled(qr/REWOUND to batch 1 of 4/);
ok($s, 'Alt-Right: the batch after');
is(pane($s, 'windows'), $live{1}{windows}, 'and its windows');
$t->send_keys('M-Right');
$t->send_keys('M-Right');
$s = $t->settled(qr/REWOUND to batch 3 of 4/);
is(pane($s, 'checkpoint'), $live{3}{checkpoint}, 'Alt-Right twice: batch 3, its checkpoint rows');
$t->send_keys('M-Left');
$s = $t->settled(qr/REWOUND to batch 2 of 4/);
is(pane($s, 'windows'), $live{2}{windows}, 'Alt-Left: the batch before');

# a batch that is not committed: one line, the screen stays
$t->type_line(':rewind 9');
$s = $t->settled(qr/error: :rewind: batch 9 is not committed in '.*' \(committed: 0\.\.4\)/);
ok($s, ':rewind 9: one line naming the committed batches');
like($s, qr/REWOUND to batch 2 of 4/, 'the screen stays on batch 2');
is(pane($s, 'windows'), $live{2}{windows}, 'with its windows');

# :live
$t->type_line(':live');
$s = $t->settled(qr/^queries:.*words/m);
ok($s, ':live: the queries strip is back');
unlike($s, qr/REWOUND/, 'no banner');
like(pane($s, 'windows'), qr/12:30:00-12:40:00 dog/, 'the live windows again');

# completion and help name the commands
$t->send_text(':rew');
$t->send_keys('Tab');
ok($t->settled(qr/:rewind/), 'Tab completes :rewind');
$t->send_keys('C-u');
$t->type_line(':help');
$s = $t->settled(qr/:open CKPT \[SINK\]/);
like($s, qr/:rewind \[N\]/, ':help lists :rewind');
like($s, qr/:live\s+back from :rewind/, 'and :live');

$t->type_line('q:stop()');
$t->type_line(':quit');
ok($t->settled(qr/__EXIT=0/), 'quits');
done_testing();
