#!/usr/bin/perl
# Power cuts across the checkpoint writer's two lanes (issue 18 item 6;
# engine/state/ckwriter.h, query_batch.c's header).  The data lane writes
# and flushes temp files ahead of the name lane, and a state delta is
# renamed before its bytes are flushed (fsutil.h's late flush), so a cut
# can leave what one lane never could: a delta named but torn (the cut's
# worst case: half its bytes), and temp files of later writes beside the
# one the cut hit.  For every k until runs no longer reach k durable
# writes, STREAMLAB_POWERCUT=k; before the restart the checkpoint is read
# as it was left: a torn delta must belong to a batch without commit (the
# rule that makes the late flush safe), and every commit must have its
# offsets and its delta whole.  Then the restart finishes with exactly
# the uncrashed run's rows, batch by batch, every delta whole, no temp
# left; and some cuts did land on a late flush.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use File::Temp qw(tempdir);
use Test::More;
use CkTest qw(write_input expected run_prog part_lines tally_sink);

$ENV{CKRUN_RETAIN} = 4;

my $dir = tempdir(CLEANUP => 1);
my $src = "$dir/in";
my $N = 120;
write_input(dir => $src, from => 1, to => $N, per => 20, flush => 1);
my $want = expected($N);

my ($code, $sig, $so, $se) = run_prog({}, $src, "$dir/ref", "$dir/ref-ck");
is($code, 0, 'run without faults exits 0') or diag($se);
my $ref_parts = part_lines("$dir/ref");

sub ids {
	my ($d, $suffix) = @_;
	$suffix //= '';
	opendir(my $dh, $d) or return ();
	my @ids = sort { $a <=> $b } map { /^(\d+)\Q$suffix\E$/ ? $1 : () } readdir($dh);
	closedir $dh;
	return @ids;
}

# A state file is whole when its trailer (u64 payload length, u32 CRC,
# u32 magic "SLSE") matches its size (the CRC is the engine's to check;
# a torn file fails the length already).
sub whole {
	my ($f) = @_;
	open(my $fh, '<:raw', $f) or return 0;
	my $data = do { local $/; <$fh> };
	close $fh;
	return 0 if length($data) < 20;
	my ($plen, $crc, $magic) = unpack('Q< L< L<', substr($data, -16));
	return $magic == 0x45534c53 && $plen == length($data) - 16;
}

my ($k, $cuts, $torn, $ahead, $bad_exit, $bad_restart, $bad_left, $bad_after) = (0) x 8;
my %t = map { $_ => 0 } qw(lost dup wrong diffs temps);
my $ok_in_a_row = 0;
while (1) {
	$k++;
	my ($out, $ck) = ("$dir/out$k", "$dir/ck$k");
	($code, $sig, $so, $se) = run_prog({ STREAMLAB_POWERCUT => $k }, $src, $out, $ck);
	if (defined $code && $code == 0) {
		last if ++$ok_in_a_row == 3;
		next;
	}
	$ok_in_a_row = 0;
	$cuts++;
	if (!defined $code || $code != 137) {
		$bad_exit++;
		diag("STREAMLAB_POWERCUT=$k: exit " . ($code // "signal $sig") . ", stderr: $se");
	}
	# the checkpoint as the cut left it
	my $sd = "$ck/state/0/0";
	my %commit = map { $_ => 1 } ids("$ck/commits");
	my %offsets = map { $_ => 1 } ids("$ck/offsets");
	for my $v (ids($sd, '.delta')) {
		next if whole("$sd/$v.delta");
		$torn++;
		# delta v is batch v-1's: it must not be committed
		if ($commit{ $v - 1 }) {
			$bad_left++;
			diag("STREAMLAB_POWERCUT=$k: $v.delta is torn but commits/" . ($v - 1) . ' exists');
		}
	}
	for my $c (keys %commit) {
		next if $offsets{$c} && -e "$sd/" . ($c + 1) . '.delta' && whole("$sd/" . ($c + 1) . '.delta');
		# purged by retention: older than the kept offsets
		next if !$offsets{$c} && grep { $_ > $c } keys %offsets;
		$bad_left++;
		diag("STREAMLAB_POWERCUT=$k: commits/$c without its offsets or a whole delta");
	}
	my @tmp_dirs = do {
		my %d;
		for my $f (`find '$ck' -name '.*.tmp' ! -name '.spare.tmp'`) {
			chomp $f;
			$f =~ s{/[^/]+$}{};
			$d{$f} = 1;
		}
		keys %d;
	};
	$ahead++ if @tmp_dirs > 1;
	($code, $sig, $so, $se) = run_prog({}, $src, $out, $ck);
	if (!defined $code || $code != 0) {
		$bad_restart++;
		diag("after STREAMLAB_POWERCUT=$k the restart failed: $se");
		next;
	}
	my @not_whole = grep { !whole("$sd/$_.delta") } ids($sd, '.delta');
	if (@not_whole) {
		$bad_after++;
		diag("after STREAMLAB_POWERCUT=$k and a restart, deltas still torn: @not_whole");
	}
	my $bad = tally_sink(\%t, $out, $ck, $want, $ref_parts);
	diag("STREAMLAB_POWERCUT=$k: $bad") if defined $bad;
	last if $k > 300;
}
diag("$cuts cuts; $torn left a delta named but torn; $ahead left temp files in two or more "
     . 'directories (the data lane ahead of the name lane)');
cmp_ok($cuts, '>=', 20, "the cut landed on every durable write of a run ($cuts)");
cmp_ok($torn, '>=', 1, "some cuts hit a late flush: a delta named, its bytes torn ($torn)");
is($bad_exit, 0, 'each cut run died (exit 137)');
is($bad_left, 0, 'no cut left a torn delta under a commit, or a commit without its offsets and delta');
is($bad_restart, 0, 'every restart after a power cut finishes');
is($bad_after, 0, 'the re-run rewrote every torn delta');
is($t{lost}, 0, '0 records lost');
is($t{dup}, 0, '0 rows duplicated');
is($t{wrong}, 0, 'no wrong or extra rows');
is($t{diffs}, 0, 'every batch\'s part file equals the run without cuts');
is($t{temps}, 0, 'no temp file left');
done_testing();
