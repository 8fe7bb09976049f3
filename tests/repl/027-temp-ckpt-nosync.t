#!/usr/bin/perl
# A temporary checkpoint (no checkpointLocation) promises no durability,
# as Spark's: it is written with the same files but no fsync (ckpt.h
# sl_ckpt_set_durable).  STREAMLAB_IO_FAIL=1 fails the first durable
# write of the process: a run on a temporary checkpoint (memory source,
# grouped count with its state store, memory sink; a crash at each crash
# point in batch 3, q:restart, drain) never reaches it, so it exits 0 with
# exactly the uncrashed counts, and leaves no directory behind; the same
# run on a real checkpoint fails at its first write (the counter counts).
# Where strace is installed, the temporary run makes no fsync at all.
use strict;
use warnings;
use FindBin;
use File::Temp qw(tempdir);
use IPC::Open3;
use Test::More;

my $bin = $ENV{STREAMLAB} // './streamlab';
my $script = "$FindBin::Bin/lib/tempck.lua";
my $dir = tempdir(CLEANUP => 1);
my $want = "rows 0=5 1=5 2=2 7=6";

sub run_sl {
	my ($env, @args) = @_;
	local %ENV = (%ENV, TMPDIR => $dir, %$env);
	open(my $null, '<', '/dev/null') or die;
	my $pid = open3('<&' . fileno($null), my $out, undef, @args);
	my $text = do { local $/; <$out> } // '';
	waitpid($pid, 0);
	return ($? >> 8, $text);
}

my @points = qw(after-offsets mid-state mid-state-flush after-state mid-sink after-sink
	before-commit mid-commit after-commit);
for my $p (@points) {
	my ($rc, $out) = run_sl({ STREAMLAB_IO_FAIL => 1 }, $bin, 'run', $script, '', $p);
	is($rc, 0, "temporary checkpoint, crash at $p, STREAMLAB_IO_FAIL=1: exit 0 (no durable write)")
		or diag($out);
	like($out, qr/^crashed: simulated crash at '\Q$p\E' in batch 3$/m, "$p: the crash happened");
	like($out, qr/^\Q$want\E$/m, "$p: after q:restart the table holds exactly the uncrashed counts");
	like($out, qr/^batches 6$/m, "$p: the checkpoint logs the 6 batches");
	like($out, qr/^left false$/m, "$p: the temporary checkpoint is removed at stop");
}
my @left = glob("$dir/temporary-*");
is(scalar @left, 0, 'no temporary checkpoint left in TMPDIR') or diag("@left");

my ($rc, $out) = run_sl({ STREAMLAB_IO_FAIL => 1 }, $bin, 'run', $script, "$dir/real-ck");
isnt($rc, 0, 'a real checkpoint under STREAMLAB_IO_FAIL=1 fails: its writes are durable');
like($out, qr/cannot write '[^']*real-ck[^']*': Input\/output error/, 'naming the file it could not write');
($rc, $out) = run_sl({}, $bin, 'run', $script, "$dir/real-ck2");
is($rc, 0, 'a real checkpoint without the fault runs');
like($out, qr/^\Q$want\E$/m, 'with the same counts');

SKIP: {
	my $strace = `command -v strace 2>/dev/null`;
	chomp $strace;
	skip 'no strace', 2 unless $strace ne '' && system("$strace -o /dev/null true 2>/dev/null") == 0;
	my $log = "$dir/strace.txt";
	($rc, $out) = run_sl({}, $strace, '-f', '-qq', '-e', 'trace=fsync,fdatasync,sync_file_range',
		'-o', $log, $bin, 'run', $script, '', 'mid-commit');
	open(my $fh, '<', $log) or die "$log: $!";
	my $n = grep { /\b(fsync|fdatasync|sync_file_range)\(/ } <$fh>;
	close $fh;
	is($n, 0, 'strace: a temporary-checkpoint run makes no fsync') or diag($out);
	($rc, $out) = run_sl({}, $strace, '-f', '-qq', '-e', 'trace=fsync', '-o', $log,
		$bin, 'run', $script, "$dir/real-ck3", 'mid-commit');
	open($fh, '<', $log) or die "$log: $!";
	$n = grep { /\bfsync\(/ } <$fh>;
	close $fh;
	cmp_ok($n, '>', 0, "strace: the same run on a real checkpoint fsyncs ($n)");
}
done_testing();
