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
use CkTest qw(write_input expected read_sink compare_rows run_prog stray_temps part_lines tally_sink);

# a short retention and a snapshot every 3 versions: the crashes also hit
# purges and the spare files they leave (ckpt.c)
$ENV{CKRUN_RETAIN} = 4;
$ENV{CKRUN_SNAPSHOT} = 3;

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

my %points = map { $_ => 0 } qw(after-offsets mid-state mid-state-flush after-state mid-sink after-sink
				before-commit mid-commit after-commit);
my ($crashes, $rounds, $starts, $bad, $unknown) = (0) x 5;
my %t = map { $_ => 0 } qw(lost dup wrong diffs temps);
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
	my $bad_rows = tally_sink(\%t, $out, $ck, $want, $ref_parts);
	diag("round $rounds: $bad_rows") if defined $bad_rows;
}
diag("$crashes crashes in $rounds rounds ($starts starts): "
     . join(', ', map { "$_ $points{$_}" } sort keys %points));
is($bad, 0, 'every run either finished or died at a crash point');
is($unknown, 0, 'only the protocol\'s points');
is(scalar(grep { $points{$_} == 0 } keys %points), 0, 'every crash point was hit');
is($t{lost}, 0, '0 records lost');
is($t{dup}, 0, '0 rows duplicated');
is($t{wrong}, 0, 'no wrong or extra rows');
is($t{diffs}, 0, 'every batch\'s part file equals the uncrashed run\'s');
is($t{temps}, 0, 'no temp file left');
done_testing();
