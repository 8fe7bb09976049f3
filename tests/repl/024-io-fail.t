#!/usr/bin/perl
# A failing disk (RELIABILITY.md 3.5: "disk full / EIO / fsync failure
# while writing checkpoint or sink: batch fails, no commit, clear error").
# STREAMLAB_IO_FAIL=k makes the k-th durable write of the process fail at
# its fsync (EIO, or ENOSPC with ":enospc").  For every k until a run no
# longer reaches k writes: `streamlab run lib/ckrun.lua` must fail with a
# one-line error naming the file it could not write (offsets, a state
# delta, a commit, the file source's log, the sink's log: whichever the
# k-th was, also when the checkpoint's background writer hit it; a
# snapshot is a redundant copy, so its failure is harmless); then the
# same command without the fault must finish, and the sink, read through
# _spark_metadata, holds exactly the uncrashed run's rows, batch by batch,
# with no temp file left.
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

my ($k, $failed, $bad_msg, $bad_restart) = (0, 0, 0, 0);
my %t = map { $_ => 0 } qw(lost dup wrong diffs temps);
my $ok_in_a_row = 0; # a snapshot's write may fail harmlessly (best effort)
my %named;
while (1) {
	$k++;
	my ($out, $ck) = ("$dir/out$k", "$dir/ck$k");
	my $fault = $k % 2 ? "$k" : "$k:enospc";
	($code, $sig, $so, $se) = run_prog({ STREAMLAB_IO_FAIL => $fault }, $src, $out, $ck);
	if (defined $code && $code == 0) {
		# fewer than k durable writes, or the k-th was a snapshot
		last if ++$ok_in_a_row == 3;
		check_sink($out, $ck, $fault);
		next;
	}
	$ok_in_a_row = 0;
	$failed++;
	my @err = grep { /error/i } split /\n/, $se;
	my $why = $k % 2 ? 'Input/output error' : 'No space left on device';
	if ($sig || !@err || $err[0] !~ m{cannot write '([^']+)': \Q$why\E}) {
		$bad_msg++;
		diag("STREAMLAB_IO_FAIL=$fault: exit " . ($code // "signal $sig") . ", stderr: $se");
	} else {
		my $f = $1;
		$f =~ s{^\Q$dir\E/}{};
		$f =~ s{/\d+((?:\.(?:delta|snapshot|compact))?)$}{/N$1}; # kinds of file, not ids
		$f =~ s{^out\d+}{out};
		$f =~ s{^out/part-.*}{out/part-*};
		$f =~ s{^ck\d+}{ck};
		$named{$f}++;
	}
	($code, $sig, $so, $se) = run_prog({}, $src, $out, $ck);
	if (!defined $code || $code != 0) {
		$bad_restart++;
		diag("after STREAMLAB_IO_FAIL=$fault the restart failed: $se");
		next;
	}
	check_sink($out, $ck, $fault);
	last if $k > 400; # a run that never stops failing
}

sub check_sink {
	my ($out, $ck, $fault) = @_;
	my $bad = tally_sink(\%t, $out, $ck, $want, $ref_parts);
	diag("STREAMLAB_IO_FAIL=$fault: $bad") if defined $bad;
}
diag("$failed runs failed on their k-th write; files named: "
     . join(', ', map { "$_ x$named{$_}" } sort keys %named));
cmp_ok($failed, '>=', 30, "the fault landed on every durable write of a run ($failed)");
ok($k <= 400, 'a run without the fault reached completes');
is($bad_msg, 0, 'each failure is an error line naming the file and the reason');
ok((grep { m{^ck/offsets/N$} } keys %named) && (grep { m{^ck/commits/N$} } keys %named)
   && (grep { m{^ck/state/0/0/N\.delta$} } keys %named) && (grep { m{^out/_spark_metadata/N$} } keys %named)
   && (grep { m{^out/part-} } keys %named),
   'offsets, commits, state deltas, the sink log and part files were each hit');
is($bad_restart, 0, 'every restart after a failed write finishes');
is($t{lost}, 0, '0 records lost');
is($t{dup}, 0, '0 rows duplicated');
is($t{wrong}, 0, 'no wrong or extra rows');
is($t{diffs}, 0, 'every batch\'s part file equals the run without faults');
is($t{temps}, 0, 'no temp file left');
done_testing();
