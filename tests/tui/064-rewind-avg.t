#!/usr/bin/perl
# The rewound windows pane shows what the live one showed (issue 20, gap
# 1): a windowed query with aggregates whose buffer is not their result
# (avg: sum and count; first/last: the value and valueSet; min_by: the
# value and its ordering; approx_count_distinct: registers) is stepped
# batch by batch, its panes captured live; `:rewind k` for every k must
# show the same values, finalised from the stored buffers as the query
# finalises them (agg.c's sl_agg_decode), not the buffers.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use File::Temp qw(tempdir);
use Test::More;
use Tmux;
use LessonScreen qw();
use RewindScreen qw();

plan skip_all => 'tmux not installed' unless Tmux::available();
*pane = \&LessonScreen::pane;

my $dir = tempdir(CLEANUP => 1);
my $t = Tmux->new(cols => 140, rows => 40);
$t->settled(qr/late \/ bad records/);

$t->type_line('spark.clock:manual("2026-01-01 12:00:00")');
$t->type_line('ms = spark.memoryStream("ts TIMESTAMP, word STRING, n INT")');
$t->type_line('df = ms:toDF():withWatermark("ts", "10 minutes"):groupBy(F.window("ts", "10 minutes"), "word"):agg(F.avg("n"), F.first("n"), F.max_by("n", "ts"), F.approx_count_distinct("n"))');
$t->type_line(qq{q = df.writeStream:outputMode("update"):format("memory"):trigger{processingTime = "1 minute"}:queryName("avgs"):option("checkpointLocation", "$dir/ck"):start()});

my @arrivals = (
	'{{"2026-01-01 12:07:00", "dog", 1}, {"2026-01-01 12:08:00", "owl", 4}}',
	'{{"2026-01-01 12:25:00", "cat", 7}, {"2026-01-01 12:09:00", "dog", 2}}',
	'{{"2026-01-01 12:26:00", "cat", 2}}',
	undef,   # no data: the watermark (12:16) evicts [12:00, 12:10)
	'{{"2026-01-01 12:29:00", "cat", 4}, {"2026-01-01 12:31:00", "dog", 5}}',
);
my %live = RewindScreen::step_live($t, \@arrivals, sub {
	my ($k, $data) = @_;
	$t->type_line("ms:addData($data)") if defined $data;
});
my $s;
like($live{1}{windows}, qr/12:00:00-12:10:00 dog\s+\[1\.5,1,2,2\]/, 'live batch 1: dog avg 1.5, first 1, max_by 2, 2 distinct');
like($live{2}{windows}, qr/12:20:00-12:30:00 cat\s+\[4\.5,7,2,2\]/, 'live batch 2: cat avg 4.5');
like($live{4}{windows}, qr/12:20:00-12:30:00 cat\s+\[4\.333/, 'live batch 4: cat avg 13/3');

$s = RewindScreen::check_rewinds($t, \%live, $#arrivals);

# a batch commits while the screen is rewound: the rows kept between
# steps are read again, the new batch is there
$t->type_line('ms:addData({{"2026-01-01 12:33:00", "owl", 8}})');
$t->type_line(':step');
$t->type_line(':rewind 5');
$s = $t->settled(qr/REWOUND to batch 5 of 5/);
ok($s, 'a batch committed while rewound: :rewind 5 finds it');
like(pane($s, 'windows'), qr/12:30:00-12:40:00 owl\s+\[8\.0,8,8,1\]\s+OPEN/, 'with its new window');
$t->type_line(':rewind 4');
$s = $t->settled(qr/REWOUND to batch 4 of 5/);
is(pane($s, 'windows'), $live{4}{windows}, 'and batch 4 as it was');

$t->type_line(':live');
$t->type_line('q:stop()');
$t->type_line(':quit');
ok($t->settled(qr/__EXIT=0/), 'quits');
done_testing();
