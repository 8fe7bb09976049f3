#!/usr/bin/perl
# The scatter view (F3, :view scatter; LESSONS.md 5 V1) draws one mark
# per row: lesson 2's ten arrivals (LESSONS.md 1.3(d)) in four batches,
# behind a withWatermark so the engine lists every row's event time.
# Five rows have an event time below the max seen before them (L2's
# answer: 12:09 cat, 12:08 dog, 12:13 owl, 12:04 donkey, 12:17 owl): five
# `+`, five `o`.  The same data through a windowed count drops the donkey
# (watermark 12:11): one `x`, four `+`, five `o`.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Test::More;
use Tmux;

plan skip_all => 'tmux not installed' unless Tmux::available();
my $t = Tmux->new(cols => 120, rows => 40);
$t->wait_for(qr/late \/ bad records/);

my @arrivals = (
	[['12:07', 'dog'], ['12:08', 'owl']],
	[['12:14', 'dog'], ['12:09', 'cat']],
	[['12:15', 'cat'], ['12:08', 'dog'], ['12:13', 'owl'], ['12:21', 'owl']],
	[['12:04', 'donkey'], ['12:17', 'owl']],
);

# The marks inside the plot (right of the event-time axis), by glyph.
sub marks {
	my ($s) = @_;
	my %n = ('o' => 0, '+' => 0, 'x' => 0);
	my $in = 0;
	for my $line (split /\n/, $s) {
		$in = 1, next if $line =~ /event time vs processing time/;
		last if $in && $line =~ /^\|\s+b\d+ /;
		next unless $in && $line =~ /^\|[^|]{9}\|(.*)\|$/;
		$n{$_}++ for grep { exists $n{$_} } split //, $1;
	}
	return \%n;
}

sub run_batches {
	my ($stream) = @_;
	$t->type_line('spark.clock:manual("2026-01-01 12:10:00")');
	for my $b (@arrivals) {
		my $rows = join(', ', map { "{\"2026-01-01 $_->[0]:00\", \"$_->[1]\"}" } @$b);
		$t->type_line("$stream:addData({$rows})");
		$t->type_line(':step');
		$t->type_line('spark.clock:advance("5 minutes")');
	}
}

$t->type_line('ms = spark.memoryStream("event_time TIMESTAMP, word STRING")');
$t->type_line('q = ms:toDF():withWatermark("event_time", "10 minutes"):select("event_time", "word").writeStream:format("memory"):queryName("l2"):start()');
run_batches('ms');
$t->type_line(':view scatter');
my $s = $t->wait_for(qr/b3 .*\n.*25:00/);
like($s, qr/o on time, \+ late but counted, x dropped, = watermark, : max event/, 'the title gives the legend');
my $n = marks($s);
is($n->{'+'}, 5, 'five rows below the max event time seen before them: +') or diag($s);
is($n->{'o'}, 5, 'five rows on time: o');
is($n->{'x'}, 0, 'nothing dropped without a stateful operator');
like($s, qr/^\|12:21:00 \|\s+:+o:+\s*\|$/m, '12:21 owl sets the max event time line');
like($s, qr/^\|11:58:00 \|\s+=+\s*\|$/m, 'the watermark step starts at 11:58 (batch 1)');

$t->type_line('ms2 = spark.memoryStream("event_time TIMESTAMP, word STRING")');
$t->type_line('q2 = ms2:toDF():withWatermark("event_time", "10 minutes"):groupBy(F.window("event_time", "10 minutes"), "word"):count().writeStream:outputMode("update"):format("memory"):queryName("l5"):start()');
run_batches('ms2');
# :step also runs the no-data batches the watermark asks for
$s = $t->wait_for(qr/ l5 .*late dropped 1/);
$s = $t->wait_for(qr/ l5 .*late dropped 1/);
$n = marks($s);
is($n->{'x'}, 1, 'the windowed count drops the donkey: x') or diag($s);
is($n->{'+'}, 4, 'the other four rows behind the max: +');
is($n->{'o'}, 5, 'five on time: o');

$t->type_line(':quit');
$t->wait_for(qr/quit anyway\? \(y\/n\)/);
$t->type_line('y');
ok($t->wait_for(qr/__EXIT=0/), 'quits');
done_testing();
