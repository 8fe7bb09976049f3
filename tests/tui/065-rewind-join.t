#!/usr/bin/perl
# The rewound screen of a stream-stream join (issue 20, gap 2): the live
# windows pane shows each side's held rows as the join reports them (a
# row per side: the last row it held, UPDATED, or the last it dropped,
# EVICTED); `:rewind k` rebuilds them from the join's
# <side>-keyWithIndexToValue change feed.  One row a side arrives and at
# most one a side leaves per batch, so the live order of evictions (the
# store's) is not at stake.  Every k must show the panes as they were.
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

my $dir = tempdir(CLEANUP => 1);
my $t = Tmux->new(cols => 120, rows => 40);
$t->settled(qr/late \/ bad records/);

$t->type_line('spark.clock:manual("2026-01-01 12:00:00")');
$t->type_line('ads = spark.memoryStream("ad INT, shown TIMESTAMP")');
$t->type_line('clicks = spark.memoryStream("cad INT, clicked TIMESTAMP")');
$t->type_line('j = ads:toDF():withWatermark("shown", "2 minutes"):join(clicks:toDF():withWatermark("clicked", "2 minutes"), F.expr("ad = cad AND clicked BETWEEN shown AND shown + interval 1 minute"))');
$t->type_line(qq{q = j.writeStream:outputMode("append"):format("memory"):trigger{processingTime = "1 minute"}:queryName("clicks"):option("checkpointLocation", "$dir/ck"):start()});

my @arrivals = (
	['{{1, "2026-01-01 12:00:00"}}', '{{1, "2026-01-01 12:00:30"}}'],
	['{{2, "2026-01-01 12:03:00"}}', '{{9, "2026-01-01 12:03:10"}}'],
	['{{3, "2026-01-01 12:06:00"}}', '{{2, "2026-01-01 12:03:40"}}'],
	[undef, undef],
	['{{4, "2026-01-01 12:09:00"}}', '{{4, "2026-01-01 12:09:20"}}'],
);
my %live = RewindScreen::step_live($t, \@arrivals, sub {
	my ($k, $data) = @_;
	my ($l, $r) = @$data;
	$t->type_line("ads:addData($l)") if defined $l;
	$t->type_line("clicks:addData($r)") if defined $r;
});
my $s;
like($live{0}{windows}, qr/left\s+\[1,2026-01-\S* UPDATED/, 'live batch 0: the left side holds ad 1');
like($live{1}{windows}, qr/right\s+\[9,2026-01-\S* UPDATED/, 'live batch 1: the right side holds click 9');
like(join('', map { $live{$_}{windows} } 0 .. $#arrivals), qr/EVICTED/, 'and some batch evicts a held row');

$s = RewindScreen::check_rewinds($t, \%live, $#arrivals);

$t->type_line(':live');
$t->type_line('q:stop()');
$t->type_line(':quit');
ok($t->settled(qr/__EXIT=0/), 'quits');
done_testing();
