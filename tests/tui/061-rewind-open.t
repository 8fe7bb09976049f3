#!/usr/bin/perl
# :open a checkpoint folder an earlier process left (issue 20 item 3): the
# first workbench runs lesson 8's query (a window count in Append mode
# over json files, into the json file sink) batch by batch and its panes
# are captured live; it quits.  A second workbench, which never saw the
# query, opens the folder with its sink and rewinds it to every batch:
# the windows (values and states: OPEN, UPDATED, EMITTED), the watermark
# and the checkpoint rows (offsets, watermark, state version, the sink
# log's rows, the commit) are the ones the first showed, from the files
# alone.  A purged batch and a folder that is not a checkpoint give one
# line each.
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
mkdir "$dir/in" or die;
my @files = (
	[['12:07', 'dog'], ['12:08', 'owl']],
	[['12:14', 'dog'], ['12:09', 'cat']],
	[['12:15', 'cat'], ['12:08', 'dog'], ['12:13', 'owl'], ['12:21', 'owl']],
	[['12:04', 'donkey'], ['12:17', 'owl'], ['12:26', 'owl']],
);
sub drop {
	my ($i) = @_;
	open(my $fh, '>', "$dir/in/.f$i") or die;
	print $fh qq({"event_time":"2026-01-01 $_->[0]:00","word":"$_->[1]"}\n) for @{$files[$i]};
	close $fh;
}

# The windows pane without what only the first process's feed saw: the
# rows dropped as late (a checkpoint keeps none, nor does Spark's) give
# the "late dropped" line and the late column.
sub windows_kept {
	my ($s, $is_pane) = @_;
	my $p = $is_pane ? $s : pane($s, 'windows');
	my @l;
	for (split /\n/, $p) {
		next if /^late dropped:/ || /^\s+\[/ || /^\s*$/;
		s/^(.*?\b(?:OPEN|UPDATED|EVICTED|EMITTED))\s+\d+\s*$/$1/;
		s/\s+$//;
		push @l, $_;
	}
	return join("\n", @l);
}

my $t = Tmux->new(cols => 120, rows => 40);
$t->settled(qr/late \/ bad records/);
$t->type_line('spark.clock:manual("2026-01-01 12:00:00")');
$t->type_line(qq{q = spark.readStream:schema("event_time TIMESTAMP, word STRING"):json("$dir/in"):withWatermark("event_time", "10 minutes"):groupBy(F.window("event_time", "10 minutes", "5 minutes"), "word"):count().writeStream:outputMode("append"):format("json"):trigger{processingTime = "1 minute"}:queryName("checkpoints"):option("checkpointLocation", "$dir/ck"):start("$dir/out")});
my (%live, $s);
my ($k, $n) = (0, 0);
for my $i (0 .. $#files) {
	drop($i);
	# the file arrives and its batch runs in one input (no trigger of
	# the screen's can run it in between), then the no-data batches the
	# watermark asks for
	my $arrive = sprintf(qq{os.rename("$dir/in/.f$i", "$dir/in/%02d.json") }, $i);
	for (;;) {
		$n++;
		$t->type_line(qq{${arrive}print("step $n", q:step())});
		$arrive = '';
		$s = $t->settled(qr/^\|step $n\s+(true|false)/m);
		last if $s =~ /^\|step $n\s+false/m;
		$s = $t->settled(qr/^\|\s*$k file .*commit/m);
		$live{$k} = { map { $_ => pane($s, $_) } qw(windows watermark checkpoint) };
		$k++;
	}
}
my $last = $k - 1;
cmp_ok($last, '>=', 5, "the first process ran batches 0..$last");
ok((grep { $live{$_}{windows} =~ /EMITTED/ } keys %live), 'some batch emitted a window (Append mode)');
$t->type_line('q:stop()');
$t->type_line(':quit');
ok($t->settled(qr/__EXIT=0/), 'the first process quits');

my $u = Tmux->new(cols => 120, rows => 40);
$u->settled(qr/late \/ bad records/);
$u->type_line(":open $dir/ck $dir/out");
$s = $u->settled(qr/REWOUND to batch $last of $last/);
ok($s, ":open: the folder, rewound to its last committed batch ($last)");
for my $b (reverse 0 .. $last) {
	$u->type_line(":rewind $b");
	$s = $u->settled(qr/REWOUND to batch $b of $last/);
	# the live pane's rows; the rewound one has the room the late line
	# took, and shows older rows in it
	my ($got, $want) = (windows_kept($s), windows_kept($live{$b}{windows}, 1));
	my @want = split /\n/, $want;
	my @got = split /\n/, $got;
	@got = ($got[0], @got[@got - @want + 1 .. $#got]) if @got > @want;
	is(join("\n", @got), $want, ":rewind $b: the windows, from the folder alone");
	is(pane($s, 'checkpoint'), $live{$b}{checkpoint}, ":rewind $b: the checkpoint rows, sink log rows included");
	my ($w) = $live{$b}{watermark} =~ /W (?:watermark )?(\d\d:\d\d:\d\d)/;
	like(pane($s, 'watermark'), qr/W (?:watermark )?\Q$w\E/, ":rewind $b: the watermark ($w)");
}

$u->type_line(":open $dir/in");
$s = $u->settled(qr/error: :rewind: .*not a .*checkpoint|error: :rewind: no committed batch/);
ok($s, ':open of a folder that is no checkpoint: one line');
like($s, qr/REWOUND to batch 0 of $last/, 'the screen stays as it was');

$u->type_line(':quit');
ok($u->settled(qr/__EXIT=0/), 'the second process quits');
done_testing();
