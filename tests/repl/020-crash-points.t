#!/usr/bin/perl
# Real crashes at every crash point (RELIABILITY.md 3.2; engine/crash.h):
# `streamlab run lib/ckrun.lua` (json files -> 1-minute windowed count and
# sum with a watermark, append mode -> json file sink) with
# STREAMLAB_CRASH=point:2 must die with exit 137 in batch 2; the same
# command without it must finish (exit 0).  Then the sink, read through
# its _spark_metadata log as Spark's readers do, holds exactly the rows an
# uncrashed run writes (0 lost, 0 duplicated), every batch's part file is
# the uncrashed run's, the offsets and commits logs are complete, and no
# temp file is left.  Crashing twice at the same point (the second time
# while re-running batch 2) ends the same way.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use File::Temp qw(tempdir);
use Test::More;
use CkTest qw(write_input expected read_sink compare_rows run_prog stray_temps part_lines);

# a short retention and a snapshot every 3 versions: the crashes also hit
# purges and the spare files they leave (ckpt.c)
$ENV{CKRUN_RETAIN} = 4;
$ENV{CKRUN_SNAPSHOT} = 3;

my $dir = tempdir(CLEANUP => 1);
my $src = "$dir/in";
my $N = 200;
write_input(dir => $src, from => 1, to => $N, per => 20, flush => 1);
my $want = expected($N);

sub ids {
	my ($d) = @_;
	opendir(my $dh, $d) or return ();
	my @ids = sort { $a <=> $b } grep { /^\d+$/ } readdir($dh);
	closedir $dh;
	return @ids;
}

my $case = 0;
sub fresh { $case++; return ("$dir/out$case", "$dir/ck$case") }

# the uncrashed run
my ($out, $ck) = fresh();
my ($code, $sig, $so, $se) = run_prog({}, $src, $out, $ck);
is($code, 0, 'uncrashed run exits 0') or diag($se);
my ($rows, $nlog, $unlisted, $problem) = read_sink($out);
is($problem, undef, 'uncrashed run: the sink log reads back');
my ($lost, $dup, $wrong, $extra, $line) = compare_rows($rows, $want);
ok(!$lost && !$dup && !$wrong && !$extra, "uncrashed run: $line");
my $ref_parts = part_lines($out);
ok(exists $ref_parts->{2}, 'uncrashed run: batch 2 writes rows (so the sink points are reached)');
my @ref_offsets = ids("$ck/offsets");
cmp_ok(scalar(@ref_offsets), '>', 3, 'uncrashed run: ' . scalar(@ref_offsets) . ' batches');

my @points = qw(after-offsets mid-state mid-state-flush after-state mid-sink after-sink before-commit mid-commit after-commit);
for my $twice (0, 1) {
	for my $p (@points) {
		next if $twice && $p eq 'after-commit'; # batch 2 is committed: no second crash
		my $tag = $twice ? "$p:2 twice" : "$p:2";
		($out, $ck) = fresh();
		for my $k (1 .. ($twice ? 2 : 1)) {
			($code, $sig, $so, $se) = run_prog({STREAMLAB_CRASH => "$p:2"}, $src, $out, $ck);
			is($code, 137, "$tag: crash $k exits 137") or diag("signal $sig; stderr: $se");
		}
		my @off = ids("$ck/offsets");
		my @com = ids("$ck/commits");
		if ($p eq 'after-commit') {
			is_deeply([$off[-1], $com[-1]], [2, 2], "$tag: died with batch 2 committed");
		} else {
			is_deeply([$off[-1] // -1, $com[-1] // -1], [2, 1],
				  "$tag: died with offsets/2 logged and commits/2 missing");
		}
		# the delta is named before its bytes are flushed (fsutil.h)
		ok(-e "$ck/state/0/0/3.delta", "$tag: died with batch 2's delta named")
			if $p eq 'mid-state-flush';
		($code, $sig, $so, $se) = run_prog({}, $src, $out, $ck);
		is($code, 0, "$tag: the restart finishes (exit 0)") or diag("signal $sig; stderr: $se");
		($rows, $nlog, $unlisted, $problem) = read_sink($out);
		is($problem, undef, "$tag: the sink log reads back");
		($lost, $dup, $wrong, $extra, $line) = compare_rows($rows, $want);
		ok(!$lost && !$dup && !$wrong && !$extra, "$tag: $line");
		is_deeply(part_lines($out), $ref_parts, "$tag: every batch's part file equals the uncrashed run's");
		@off = ids("$ck/offsets");
		@com = ids("$ck/commits");
		is_deeply([\@off, \@com], [\@ref_offsets, \@ref_offsets],
			  "$tag: offsets and commits 0.." . $ref_offsets[-1] . ', all committed');
		is_deeply([stray_temps($ck, $out)], [], "$tag: no temp files left");
	}
}

done_testing();
