#!/usr/bin/perl
# Corrupted checkpoint and sink-log files (RELIABILITY.md 2, 3.4 T6, 3.5):
# zero-length, truncated, garbage and "v99" versions of the files a
# restart must read: offsets/L, commits/C, metadata, the newest state file
# and the newest _spark_metadata entry.  Each start on such a checkpoint
# either recovers by rule (then, fed more input, the sink ends exactly
# right: 0 lost, 0 duplicated) or is refused: a non-zero exit, the file's
# name on stderr, and the checkpoint and sink byte for byte unchanged.
# Never a silent reset.  The newest offsets file of a batch that did not
# commit (the process died after writing it) is the case the rule covers:
# a torn one must be discarded and the batch planned again.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use File::Temp qw(tempdir);
use File::Path qw(remove_tree);
use File::Copy qw(copy);
use Test::More;
use CkTest qw(write_input expected read_sink compare_rows run_prog tree_hash stray_temps);

my $dir = tempdir(CLEANUP => 1);
my ($src, $out, $ck) = ("$dir/in", "$dir/out", "$dir/ck");
my $N1 = 100; # ids in the first run
my $N = 200;  # ids in all
my $per = 20;

sub slurp {
	my ($p) = @_;
	open(my $fh, '<', $p) or die "$p: $!";
	binmode $fh;
	local $/;
	my $s = <$fh>;
	return $s;
}

sub spew {
	my ($p, $s) = @_;
	open(my $fh, '>', $p) or die "$p: $!";
	binmode $fh;
	print $fh $s;
	close $fh or die "$p: $!";
}

my %corrupt = (
	'zero-length' => sub { '' },
	'truncated'   => sub { substr($_[0], 0, int(length($_[0]) / 2)) },
	'garbage'     => sub { join('', map { chr(($_ * 97 + 13) % 256) } 1 .. (length($_[0]) || 16)) },
	'v99'         => sub { my $s = $_[0]; $s =~ s/\Av\d+/v99/ or $s = "v99\n" . substr($s, 3); $s },
);

# A pristine state, rebuilt for each case at the same paths (the logs hold
# absolute paths): the first $N1 records run to the end (all committed),
# or, with $crash, the run dies at that point of batch 2.
my %pristine;
sub prepare {
	my ($crash) = @_;
	my $key = $crash // 'done';
	remove_tree($src, $out, $ck);
	if (!$pristine{$key}) {
		write_input(dir => $src, from => 1, to => $N1, per => $per);
		my ($code, $sig, $so, $se) = run_prog($crash ? {STREAMLAB_CRASH => "$crash:2"} : {},
						      $src, $out, $ck);
		my $want = $crash ? 137 : 0;
		die "prepare $key: exit " . ($code // "signal $sig") . " (wanted $want): $se"
		    unless defined $code && $code == $want;
		system('rm', '-rf', "$dir/p-$key") == 0 or die;
		mkdir "$dir/p-$key" or die;
		system('cp', '-a', $src, $out, $ck, "$dir/p-$key/") == 0 or die "cp";
		$pristine{$key} = 1;
	} else {
		system('cp', '-a', "$dir/p-$key/in", "$dir/p-$key/out", "$dir/p-$key/ck", "$dir/") == 0
		    or die "cp";
	}
}

sub newest {
	my ($d, $re) = @_;
	opendir(my $dh, $d) or return undef;
	my @f = sort { ($a =~ /(\d+)/)[0] <=> ($b =~ /(\d+)/)[0] || $a cmp $b } grep { /$re/ } readdir($dh);
	closedir $dh;
	return @f ? "$d/$f[-1]" : undef;
}

# The newest state file of operator 0 (delta or snapshot).
sub newest_state {
	my @d = glob("$ck/state/*/0");
	return @d ? newest($d[0], qr/^\d+\.(delta|snapshot)$/) : undef;
}

my %targets = (
	'offsets/L'          => sub { newest("$ck/offsets", qr/^\d+$/) },
	'commits/C'          => sub { newest("$ck/commits", qr/^\d+$/) },
	'metadata'           => sub { -e "$ck/metadata" ? "$ck/metadata" : undef },
	'state (newest)'     => \&newest_state,
	'_spark_metadata/N'  => sub { newest("$out/_spark_metadata", qr/^\d+$/) },
);

# Start on the corrupted checkpoint with more input waiting; judge.
# $must: 'recover' or 'either'.
sub judge {
	my ($tag, $file, $must) = @_;
	(my $rel = $file) =~ s{^\Q$dir\E/(ck|out)/}{};
	my $before = tree_hash($ck, $out);
	write_input(dir => $src, from => $N1 + 1, to => $N, per => $per,
		    first_file => $N1 / $per + 1, flush => 1);
	my ($code, $sig, $so, $se) = run_prog({}, $src, $out, $ck);
	if (defined $code && $code == 0) {
		my ($rows, undef, undef, $problem) = read_sink($out);
		is($problem, undef, "$tag: recovered; the sink log reads back");
		my ($lost, $dup, $wrong, $extra, $line) = compare_rows($rows, expected($N));
		ok(!$lost && !$dup && !$wrong && !$extra, "$tag: recovered; $line");
		is_deeply([stray_temps($ck, $out)], [], "$tag: recovered; no temp files left");
		return;
	}
	if ($must eq 'recover') {
		fail("$tag: must recover by rule, but the start failed (exit " . ($code // "signal $sig") . ")");
		diag($se);
		return;
	}
	ok(defined $code && $code != 0, "$tag: refused with a non-zero exit (" . ($code // "signal $sig") . ')');
	like($se, qr/\Q$rel\E/, "$tag: stderr names '$rel'") or diag($se);
	is(tree_hash($ck, $out), $before, "$tag: checkpoint and sink byte for byte unchanged");
}

# committed files of a finished run
for my $t (sort keys %targets) {
	for my $how (sort keys %corrupt) {
		prepare();
		my $file = $targets{$t}->();
		if (!defined $file) {
			fail("$t $how: no such file in the checkpoint");
			next;
		}
		spew($file, $corrupt{$how}->(slurp($file)));
		judge("committed $t, $how", $file, 'either');
	}
}

# the newest offsets file of a batch that died before its commit: a torn
# one is discarded by rule; v99 may be refused
for my $how (sort keys %corrupt) {
	prepare('after-offsets');
	my $file = newest("$ck/offsets", qr/^\d+$/);
	like($file // '', qr{/offsets/2$}, "uncommitted offsets/2 ($how): the crash left offsets/2");
	spew($file, $corrupt{$how}->(slurp($file)));
	judge("uncommitted offsets/2, $how", $file, $how eq 'v99' ? 'either' : 'recover');
}

# the newest sink-log entry and state file of a batch that died before
# its commit: discarded by rule or refused, never a wrong answer
for my $how (sort keys %corrupt) {
	prepare('after-sink');
	my $file = newest("$out/_spark_metadata", qr/^\d+$/);
	like($file // '', qr{/_spark_metadata/2$}, "uncommitted _spark_metadata/2 ($how): the crash left it");
	spew($file, $corrupt{$how}->(slurp($file)));
	judge("uncommitted _spark_metadata/2, $how", $file, 'either');

	prepare('after-state');
	$file = newest_state();
	ok(defined $file, "uncommitted state ($how): the crash left a state file");
	next unless defined $file;
	spew($file, $corrupt{$how}->(slurp($file)));
	judge("uncommitted state, $how", $file, 'either');
}

done_testing();
