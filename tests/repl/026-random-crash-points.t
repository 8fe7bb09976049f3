#!/usr/bin/perl
# Probabilistic crash points (RELIABILITY.md 3.4 T3, RocksDB's whitebox
# style): with STREAMLAB_CRASH_RANDOM=N every crash point a batch reaches
# kills the process with probability 1/N (it names the point on stderr).
# `streamlab run lib/ckrun.lua` is restarted until it finishes; then the
# sink, read through _spark_metadata, must hold exactly the uncrashed run's
# rows, batch by batch, with no temp file left; rounds repeat on a fresh
# checkpoint until the crash budget is spent.  Every point must be hit.
#
# STREAMLAB_RANDOM_CRASHES (default 500) sets the budget, STREAMLAB_SEED
# the seed of the first run (later runs use seed+1, ...).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use File::Temp qw(tempdir);
use File::Path qw(remove_tree);
use Test::More;
use CkTest qw(write_input expected read_sink compare_rows run_prog stray_temps part_lines);

my $budget = $ENV{STREAMLAB_RANDOM_CRASHES} // 500;
my $seed = $ENV{STREAMLAB_SEED} // (time() % 100003);
diag("seed $seed (STREAMLAB_SEED=$seed reproduces the run), crashes $budget");
my $dir = tempdir(CLEANUP => 1);
my $src = "$dir/in";
my $N = 300;
write_input(dir => $src, from => 1, to => $N, per => 20, flush => 1);
my $want = expected($N);
my ($code, $sig, $so, $se) = run_prog({}, $src, "$dir/ref", "$dir/ref-ck");
is($code, 0, 'uncrashed run exits 0') or diag($se);
my $ref_parts = part_lines("$dir/ref");

my %points = map { $_ => 0 } qw(after-offsets mid-state after-state mid-sink after-sink
				before-commit mid-commit after-commit);
my ($crashes, $rounds, $starts, $bad, $lost, $dup, $diffs, $temps, $unknown) = (0) x 9;
while ($crashes < $budget) {
	$rounds++;
	my ($out, $ck) = ("$dir/out", "$dir/ck");
	remove_tree($out, $ck);
	while (1) {
		$starts++;
		($code, $sig, $so, $se) = run_prog({ STREAMLAB_CRASH_RANDOM => '40:' . ($seed + $starts) },
						   $src, $out, $ck);
		last if defined $code && $code == 0;
		if (defined $code && $code == 137 && $se =~ /crash at '([a-z-]+)' in batch/) {
			$crashes++;
			if (exists $points{$1}) { $points{$1}++ } else { $unknown++ }
			next;
		}
		$bad++;
		diag("round $rounds: exit " . ($code // "signal $sig") . ": $se");
		last;
	}
	my ($rows) = read_sink($out);
	my @r = compare_rows($rows, $want);
	$lost += $r[0];
	$dup += $r[1];
	diag("round $rounds: $r[4]") if $r[0] || $r[1] || $r[2] || $r[3];
	my $parts = part_lines($out);
	for my $b (keys %$ref_parts) {
		$diffs++ unless defined $parts->{$b} && $parts->{$b} eq $ref_parts->{$b};
	}
	$temps += scalar(stray_temps($ck, $out));
}
diag("$crashes crashes in $rounds rounds ($starts starts): "
     . join(', ', map { "$_ $points{$_}" } sort keys %points));
is($bad, 0, 'every run either finished or died at a crash point');
is($unknown, 0, 'only the protocol\'s points');
is(scalar(grep { $points{$_} == 0 } keys %points), 0, 'every crash point was hit');
is($lost, 0, '0 records lost');
is($dup, 0, '0 rows duplicated');
is($diffs, 0, 'every batch\'s part file equals the uncrashed run\'s');
is($temps, 0, 'no temp file left');
done_testing();
