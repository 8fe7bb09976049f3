#!/usr/bin/perl
# The rewound screen of session windows (issue 20, gap 2): the live windows
# pane shows each open session (op_session.c's events: UPDATED when rows
# touched it, EVICTED when it grew into another window or merged into an
# earlier session, EMITTED when the watermark closed it in Append mode);
# `:rewind k` rebuilds them from the session operator's change feed.
# The batches extend a session, bridge two into one and close some; every
# k must show the panes as they were live.
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
my $t = Tmux->new(cols => 140, rows => 40);
$t->settled(qr/late \/ bad records/);

$t->type_line('spark.clock:manual("2026-01-01 12:00:00")');
$t->type_line('ms = spark.memoryStream("ts TIMESTAMP, user STRING")');
$t->type_line('df = ms:toDF():withWatermark("ts", "10 minutes"):groupBy(F.session_window("ts", "5 minutes"), "user"):count()');
$t->type_line(qq{q = df.writeStream:outputMode("append"):format("memory"):trigger{processingTime = "1 minute"}:queryName("visits"):option("checkpointLocation", "$dir/ck"):start()});

my @arrivals = (
	'{{"2026-01-01 12:00:00", "ann"}, {"2026-01-01 12:08:00", "ann"}, {"2026-01-01 12:01:00", "bob"}}',
	'{{"2026-01-01 12:02:00", "bob"}}',                       # bob's session grows: same start
	'{{"2026-01-01 12:04:00", "ann"}, {"2026-01-01 12:30:00", "cat"}}', # bridges ann's two sessions
	undef,                                                    # the watermark (12:20) closes ann and bob
	'{{"2026-01-01 12:33:00", "cat"}}',
);
my %live = RewindScreen::step_live($t, \@arrivals, sub {
	my ($k, $data) = @_;
	$t->type_line("ms:addData($data)") if defined $data;
});
my $s;
like($live{0}{windows}, qr/12:00:00-12:05:00 ann\s+\[1\]\s+UPDATED/, 'live batch 0: ann has a session [12:00, 12:05)');
like($live{1}{windows}, qr/12:01:00-12:07:00 bob\s+\[2\]\s+UPDATED/, 'live batch 1: bob\'s session grew');
like($live{1}{windows}, qr/12:01:00-12:06:00 bob\s+\[1\]\s+EVICTED/, 'and its old window left');
like($live{2}{windows}, qr/12:00:00-12:13:00 ann\s+\[3\]\s+UPDATED/, 'live batch 2: ann\'s sessions merged');
like($live{3}{windows}, qr/12:00:00-12:13:00 ann\s+\[3\]\s+EMITTED/, 'live batch 3: the watermark closed it');

$s = RewindScreen::check_rewinds($t, \%live, $#arrivals);

$t->type_line(':live');
$t->type_line('q:stop()');
$t->type_line(':quit');
ok($t->settled(qr/__EXIT=0/), 'quits');
done_testing();
