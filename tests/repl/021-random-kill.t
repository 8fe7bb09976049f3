#!/usr/bin/perl
# Random SIGKILL (RELIABILITY.md 3.4 T2): start `streamlab run
# lib/ckrun.lua` (1,000 records in 50 json files -> 1-minute windowed count
# and sum with a watermark, append -> json file sink), SIGKILL it after a
# random delay, start it again, and repeat until it exits 0; then read the
# sink through _spark_metadata and count: 0 records lost, 0 rows
# duplicated, no row wrong, and every batch's part file equal to an
# uncrashed run's.  A round that finishes starts the next one on a fresh
# checkpoint until the kill budget is spent.
#
# STREAMLAB_KILLS (default 250) sets the budget; STREAMLAB_SEED the seed
# (default: from the time, printed).  The long run: STREAMLAB_KILLS=10000.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use File::Temp qw(tempdir);
use File::Path qw(remove_tree);
use Time::HiRes qw(time sleep);
use Test::More;
use CkTest qw(write_input expected read_sink compare_rows run_prog spawn finish
	      stray_temps part_lines);

# a short retention and a snapshot every 3 versions: the crashes also hit
# purges and the spare files they leave (ckpt.c)
$ENV{CKRUN_RETAIN} = 4;
$ENV{CKRUN_SNAPSHOT} = 3;

my $kills_wanted = $ENV{STREAMLAB_KILLS} // 250;
my $seed = $ENV{STREAMLAB_SEED} // (time() * 1000 % 1000003);
srand($seed);
diag("seed $seed (STREAMLAB_SEED=$seed reproduces the delays), kills $kills_wanted");

my $dir = tempdir(CLEANUP => 1);
my $src = "$dir/in";
my $N = 1000;
write_input(dir => $src, from => 1, to => $N, per => 20, flush => 1);
my $want = expected($N);

# the uncrashed run: its time scales the delays, its part files are the
# batch-by-batch reference
my $t0 = time();
my ($code, $sig, $so, $se) = run_prog({}, $src, "$dir/ref-out", "$dir/ref-ck");
my $ref_secs = time() - $t0;
is($code, 0, 'uncrashed run exits 0') or diag($se);
my ($rows, undef, undef, $problem) = read_sink("$dir/ref-out");
is($problem, undef, 'uncrashed run: the sink log reads back');
my ($lost, $dup, $wrong, $extra, $line) = compare_rows($rows, $want);
ok(!$lost && !$dup && !$wrong && !$extra, "uncrashed run: $line");
my $ref_parts = part_lines("$dir/ref-out");
diag(sprintf('uncrashed run: %.0f ms', $ref_secs * 1000));

# delays uniform in [2 ms, max]: max a little over one uncrashed run (so
# kills land in startup, recovery, batches and shutdown alike), within a
# few ms .. 400 ms
my $max_ms = $ref_secs * 1000 * 1.2;
$max_ms = 30 if $max_ms < 30;
$max_ms = 400 if $max_ms > 400;

my ($kills, $rounds, $starts, $bad_rounds, $unrecoverable, $unreadable) = (0, 0, 0, 0, 0, 0);
my ($tot_lost, $tot_dup, $tot_wrong, $tot_extra, $part_diffs, $temps) = (0, 0, 0, 0, 0, 0);
my $deadline = time() + ($ENV{STREAMLAB_KILL_SECONDS} // ($kills_wanted <= 1000 ? 200 : 1e9));
ROUND: while ($kills < $kills_wanted && time() < $deadline) {
	$rounds++;
	my ($out, $ck) = ("$dir/out", "$dir/ck");
	remove_tree($out, $ck);
	my $killed_this_round = 0;
	while (1) {
		my $pid = spawn({}, $src, $out, $ck);
		$starts++;
		my $kill_now = $kills < $kills_wanted;
		sleep((2 + rand($max_ms - 2)) / 1000) if $kill_now;
		kill('KILL', $pid) if $kill_now;
		($code, $sig, $so, $se) = finish($pid);
		if (defined $code && $code == 0) {
			last;
		}
		if ($sig == 9) {
			$kills++;
			$killed_this_round++;
			next;
		}
		$unrecoverable++;
		diag("round $rounds: a restart failed (exit " . ($code // "signal $sig") . "): $se");
		next ROUND;
	}
	($rows, undef, undef, $problem) = read_sink($out);
	if (defined $problem) {
		$unreadable++;
		diag("round $rounds: $problem");
	}
	my @r = compare_rows($rows, $want);
	$tot_lost += $r[0];
	$tot_dup += $r[1];
	$tot_wrong += $r[2];
	$tot_extra += $r[3];
	if ($r[0] || $r[1] || $r[2] || $r[3]) {
		$bad_rounds++;
		diag("round $rounds ($killed_this_round kills): $r[4]");
	}
	my $parts = part_lines($out);
	for my $b (keys %$ref_parts) {
		$part_diffs++ unless defined $parts->{$b} && $parts->{$b} eq $ref_parts->{$b};
	}
	for my $b (keys %$parts) { $part_diffs++ unless defined $ref_parts->{$b} }
	$temps += scalar(stray_temps($ck, $out));
}
my $summary = sprintf('%d kills in %d rounds (%d starts): %d records lost, %d rows duplicated, '
		      . '%d wrong, %d extra, %d part-file diffs, %d stray temp files, '
		      . '%d unrecoverable restarts', $kills, $rounds, $starts, $tot_lost, $tot_dup,
		      $tot_wrong, $tot_extra, $part_diffs, $temps, $unrecoverable);
diag($summary);
cmp_ok($kills, '>=', $kills_wanted > 50 ? 50 : $kills_wanted, "enough kills landed ($kills)");
is($unrecoverable, 0, 'every restart after a kill recovered');
is($unreadable, 0, 'the sink log always reads back');
is($tot_lost, 0, '0 records lost');
is($tot_dup, 0, '0 rows duplicated');
is($tot_wrong + $tot_extra, 0, 'no wrong or extra rows');
is($part_diffs, 0, 'every batch\'s part file equals the uncrashed run\'s');
is($temps, 0, 'no stray temp files after the final run of a round');
done_testing();
