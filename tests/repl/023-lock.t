#!/usr/bin/perl
# Two programs on one checkpoint (RELIABILITY.md 2, 3.5): while a first
# `streamlab run lib/ckrun.lua` holds its query open, a second one started
# on the same checkpoint is refused (non-zero exit, the checkpoint named,
# "in use"), and changes nothing in the checkpoint or the sink.  Once the
# first has stopped, or died by SIGKILL, a start on the checkpoint works.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use File::Temp qw(tempdir);
use Time::HiRes qw(time sleep);
use POSIX ();
use Test::More;
use CkTest qw(write_input expected read_sink compare_rows run_prog spawn finish tree_hash);

my $dir = tempdir(CLEANUP => 1);
my ($src, $out, $ck) = ("$dir/in", "$dir/out", "$dir/ck");
write_input(dir => $src, from => 1, to => 100, per => 20, flush => 1);

for my $how ('stop', 'kill') {
	my $stop = "$dir/stop-$how";
	unlink $stop;
	my $ready = "$dir/ready-$how";
	my $holder = spawn({}, $src, $out, $ck, 'hold', $stop, $ready);
	my $until = time() + 60;
	sleep 0.05 while !-e $ready && time() < $until && waitpid($holder, POSIX::WNOHANG()) == 0;
	ok(-e $ready, "$how: the first program ran its batches and holds the query open");
	my $before = tree_hash($ck, $out);
	my ($code, $sig, $so, $se) = run_prog({}, $src, $out, $ck);
	ok(defined $code && $code != 0, "$how: a second program on the same checkpoint is refused (exit "
	   . ($code // "signal $sig") . ')');
	like($se, qr/in use/, "$how: stderr says the checkpoint is in use") or diag($se);
	like($se, qr/\Q$ck\E/, "$how: stderr names the checkpoint");
	is(tree_hash($ck, $out), $before, "$how: the refused start changed nothing");
	if ($how eq 'stop') {
		open(my $fh, '>', $stop) or die;
		close $fh;
		($code, $sig) = finish($holder);
		is($code, 0, 'stop: the first program exits 0 when told to stop');
	} else {
		kill('KILL', $holder);
		($code, $sig) = finish($holder);
		is($sig, 9, 'kill: the first program died by SIGKILL');
	}
	($code, $sig, $so, $se) = run_prog({}, $src, $out, $ck);
	is($code, 0, "$how: then a start on the checkpoint works") or diag($se);
	my ($rows, undef, undef, $problem) = read_sink($out);
	is($problem, undef, "$how: the sink log reads back");
	my ($lost, $dup, $wrong, $extra, $line) = compare_rows($rows, expected(100));
	ok(!$lost && !$dup && !$wrong && !$extra, "$how: $line");
}

done_testing();
