#!/usr/bin/perl
# Power cuts (RELIABILITY.md 3.3 P2/P3, T3): STREAMLAB_POWERCUT=k cuts the
# power during the k-th durable write of the process, after its data was
# fsync'd and before its directory was: the new name is lost (a rename over
# an old file never happens), the fsync'd temp file stays, the process
# dies.  Every earlier write was whole and durable when it returned, so
# this is the state a real power cut can leave.  For every k until runs no
# longer reach k writes: the run dies (137), the same command without the
# cut finishes, and the sink, read through _spark_metadata, holds exactly
# the uncrashed run's rows, batch by batch, with no temp file left.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use File::Temp qw(tempdir);
use Test::More;
use CkTest qw(write_input expected read_sink compare_rows run_prog stray_temps part_lines tally_sink);

# a short retention: the faults also hit writes through the spare files
# purges leave (ckpt.c).  Snapshots stay rare (every 10 versions): their
# writes, on a thread of their own, are harmless to fail, and three in a
# row would end the loop early
$ENV{CKRUN_RETAIN} = 4;

my $dir = tempdir(CLEANUP => 1);
my $src = "$dir/in";
my $N = 200;
write_input(dir => $src, from => 1, to => $N, per => 20, flush => 1);
my $want = expected($N);

my ($code, $sig, $so, $se) = run_prog({}, $src, "$dir/ref", "$dir/ref-ck");
is($code, 0, 'run without faults exits 0') or diag($se);
my $ref_parts = part_lines("$dir/ref");

my ($k, $failed, $bad_exit, $bad_restart) = (0, 0, 0, 0);
my %t = map { $_ => 0 } qw(lost dup wrong diffs temps);
my $ok_in_a_row = 0;
while (1) {
	$k++;
	my ($out, $ck) = ("$dir/out$k", "$dir/ck$k");
	($code, $sig, $so, $se) = run_prog({ STREAMLAB_POWERCUT => $k }, $src, $out, $ck);
	if (defined $code && $code == 0) {
		# fewer than k durable writes (snapshots are written on their
		# own thread: a run may finish before its k-th)
		last if ++$ok_in_a_row == 3;
		check_sink($out, $ck, $k);
		next;
	}
	$ok_in_a_row = 0;
	$failed++;
	if (!defined $code || $code != 137) {
		$bad_exit++;
		diag("STREAMLAB_POWERCUT=$k: exit " . ($code // "signal $sig") . ", stderr: $se");
	}
	($code, $sig, $so, $se) = run_prog({}, $src, $out, $ck);
	if (!defined $code || $code != 0) {
		$bad_restart++;
		diag("after STREAMLAB_POWERCUT=$k the restart failed: $se");
		next;
	}
	check_sink($out, $ck, $k);
	last if $k > 400;
}

sub check_sink {
	my ($out, $ck, $fault) = @_;
	my $bad = tally_sink(\%t, $out, $ck, $want, $ref_parts);
	diag("STREAMLAB_POWERCUT=$fault: $bad") if defined $bad;
}
diag("$failed runs lost power during their k-th durable write");
cmp_ok($failed, '>=', 30, "the cut landed on every durable write of a run ($failed)");
ok($k <= 400, 'a run without the cut completes');
is($bad_exit, 0, 'each cut run died (exit 137)');
is($bad_restart, 0, 'every restart after a power cut finishes');
is($t{lost}, 0, '0 records lost');
is($t{dup}, 0, '0 rows duplicated');
is($t{wrong}, 0, 'no wrong or extra rows');
is($t{diffs}, 0, 'every batch\'s part file equals the run without cuts');
is($t{temps}, 0, 'no temp file left');
done_testing();
