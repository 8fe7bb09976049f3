#!/usr/bin/perl
# The differential test of the streaming aggregation's two state providers
# (issue 18 item 3): random eligible queries (lib/livediff.lua: windows
# tumbling and sliding at any position among the group keys, group
# columns with NULLs and -0.0, late rows,
# Append and Update) run on the byte store (STREAMLAB_STATE_PROVIDER=bytes,
# the test switch) and on the typed live table (the default).  Each pair of
# runs must print the same rows batch by batch, in the same order, with the
# same state numbers and late-row log, and leave checkpoints whose state files hold the same
# records: every <version>.delta and .snapshot of one exists in the other,
# and its records (key bytes, value bytes, or a remove), sorted, are equal
# byte for byte (the live table lists them in another order, livetab.h).
# Some runs crash at a crash point mid-way and restart (the store restored
# from the files), some fail a batch in foreachBatch (its stores abort) and
# restart; a run crashed on one provider restarts on the other too: each
# reads the other's files.
use strict;
use warnings;
use FindBin;
use File::Temp qw(tempdir);
use File::Find;
use IPC::Open3;
use Test::More;

my $bin = $ENV{STREAMLAB} // './streamlab';
my $script = "$FindBin::Bin/lib/livediff.lua";
my $dir = tempdir(CLEANUP => 1);

sub run_sl {
	my ($env, @args) = @_;
	local %ENV = (%ENV, TMPDIR => $dir, %$env);
	open(my $null, '<', '/dev/null') or die;
	my $pid = open3('<&' . fileno($null), my $out, undef, @args);
	my $text = do { local $/; <$out> } // '';
	waitpid($pid, 0);
	return ($? >> 8, $text);
}

# LZ4 block decompression (the format's sequences: a token, literals, a
# two-byte offset, a match), enough for our state files.
sub unlz4 {
	my ($in, $rawlen) = @_;
	my ($i, $out, $n) = (0, '', length $in);
	while ($i < $n) {
		my $tok = ord(substr($in, $i++, 1));
		my $lit = $tok >> 4;
		if ($lit == 15) {
			my $b;
			do { $b = ord(substr($in, $i++, 1)); $lit += $b } while ($b == 255);
		}
		$out .= substr($in, $i, $lit);
		$i += $lit;
		last if $i >= $n;
		my $off = unpack('v', substr($in, $i, 2));
		$i += 2;
		my $ml = $tok & 15;
		if ($ml == 15) {
			my $b;
			do { $b = ord(substr($in, $i++, 1)); $ml += $b } while ($b == 255);
		}
		$ml += 4;
		my $from = length($out) - $off;
		$out .= substr($out, $from + $_, 1) for 0 .. $ml - 1;
	}
	return length($out) == $rawlen ? $out : undef;
}

# The records of a state file, each as one string (hex key, then hex value
# or "-" for a remove), sorted; undef when it does not parse.
sub records {
	my ($path) = @_;
	open(my $f, '<:raw', $path) or return undef;
	my $data = do { local $/; <$f> };
	close $f;
	return undef if length($data) < 20;
	my $p = substr($data, 0, length($data) - 16);
	my $head = unpack('V', substr($p, 0, 4));
	if ($head == 0x5a534c53) {
		my ($lo, $hi) = unpack('VV', substr($p, 4, 8));
		$p = unlz4(substr($p, 12), $lo + $hi * 4294967296);
		return undef unless defined $p;
		$head = unpack('V', substr($p, 0, 4));
	} elsif ($head == 0x43534c53) { # "SLSC": {u32 raw, u32 lz4 length, block}...
		my ($i, $raw) = (4, '');
		while ($i < length $p) {
			my ($rl, $cl) = unpack('VV', substr($p, $i, 8));
			my $b = unlz4(substr($p, $i + 8, $cl), $rl);
			return undef unless defined $b;
			$raw .= $b;
			$i += 8 + $cl;
		}
		$p = $raw;
		$head = unpack('V', substr($p, 0, 4));
	}
	my ($i, @r) = (4);
	if ($head == 0x46534c53) { # "SLSF": front-coded (a temporary checkpoint's)
		my $uvar = sub {
			my ($x, $sh) = (0, 0);
			while ($i < length $p) {
				my $c = ord(substr($p, $i++, 1));
				$x |= ($c & 127) << $sh;
				return $x unless $c & 128;
				$sh += 7;
			}
			return undef;
		};
		my $key = '';
		while ($i < length $p) {
			my $sh = $uvar->();
			my $rest = $uvar->();
			return undef unless defined $rest && $sh <= length $key;
			$key = substr($key, 0, $sh) . substr($p, $i, $rest);
			$i += $rest;
			my $v = $uvar->();
			return undef unless defined $v;
			my $k = unpack('H*', $key);
			if ($v == 0) {
				push @r, "$k -";
			} else {
				push @r, "$k " . unpack('H*', substr($p, $i, $v - 1));
				$i += $v - 1;
			}
		}
		return join("\n", sort @r);
	}
	return undef unless $head == 0x44534c53;
	while ($i < length $p) {
		my ($kl, $vl) = unpack('VV', substr($p, $i, 8));
		$i += 8;
		my $k = unpack('H*', substr($p, $i, $kl));
		$i += $kl;
		if ($vl == 4294967295) {
			push @r, "$k -";
		} else {
			push @r, "$k " . unpack('H*', substr($p, $i, $vl));
			$i += $vl;
		}
	}
	return join("\n", sort @r);
}

sub state_files {
	my ($ck) = @_;
	my %f;
	return \%f unless -d "$ck/state";
	find(sub { $f{substr($File::Find::name, length $ck)} = 1
		if /^\d+\.(delta|snapshot)$/ }, "$ck/state");
	return \%f;
}

sub same_state {
	my ($a, $b, $tag) = @_;
	my ($fa, $fb) = (state_files($a), state_files($b));
	my @bad;
	for my $f (sort keys %$fa) {
		if (!$fb->{$f}) { push @bad, "$f only on bytes"; next }
		my ($ra, $rb) = (records("$a$f"), records("$b$f"));
		push @bad, "$f unreadable" unless defined $ra && defined $rb;
		push @bad, "$f records differ" if defined $ra && defined $rb && $ra ne $rb;
	}
	for my $f (sort keys %$fb) { push @bad, "$f only on live" unless $fa->{$f} }
	ok(!@bad && keys %$fa > 0, "$tag: the same state files (" . scalar(keys %$fa) .
		") with the same records") or diag(join("\n", @bad[0 .. ($#bad < 5 ? $#bad : 5)]));
}

my @points = qw(after-offsets mid-state after-state mid-sink after-sink before-commit mid-commit after-commit);
my ($n, $seeds_upd, $seeds_app, $late, $slid) = (0, 0, 0, 0, 0);
my %wpos;
my ($wslid, $wtumb) = (0, 0);
# 57 and 117: sliding windows in Update mode past SCAN_ENDS open ends, the
# byte store's index eviction that once removed one group a batch
for my $seed (1 .. 24, 57, 117) {
	my @cases = (['', '']);
	push @cases, [$points[$seed % @points], ''] if $seed % 3 == 0;
	push @cases, ['', 3 + $seed % 5] if $seed % 4 == 1;
	for my $c (@cases) {
		my ($point, $failb) = @$c;
		my $tag = "seed $seed" . ($point ne '' ? " crash $point" : '') .
			($failb ne '' ? " fail batch $failb" : '');
		my ($cka, $ckb) = ("$dir/a$n", "$dir/b$n");
		$n++;
		my ($ra, $oa) = run_sl({ STREAMLAB_STATE_PROVIDER => 'bytes' }, $bin, 'run',
			$script, $seed, $cka, $point, $failb);
		my ($rb, $ob) = run_sl({}, $bin, 'run', $script, $seed, $ckb, $point, $failb);
		my ($q) = $oa =~ /^(query .*)$/m;
		ok($ra == 0 && $rb == 0, "$tag: both runs exit 0") or diag("$oa\n$ob");
		is($ob, $oa, "$tag: the same rows and state numbers batch by batch ($q)");
		same_state($cka, $ckb, $tag);
		$seeds_upd++ if $oa =~ /mode=update/;
		$seeds_app++ if $oa =~ /mode=append/;
		$late++ if $oa =~ /dropped=[1-9]/;
		$slid++ if $oa =~ /slide=\d/ && $oa =~ /^L1 /m;
		my ($wp) = $oa =~ /window at (\d+)/;
		$wpos{$wp}++ if defined $wp;
		$wslid++ if defined $wp && $wp > 1 && $oa =~ /slide=\d/;
		$wtumb++ if defined $wp && $wp > 1 && $oa =~ /slide=nil/;
	}
}
ok(keys %wpos >= 3 && $wslid > 0 && $wtumb > 0, 'the window key at positions ' .
	join(',', sort keys %wpos) . ", not first in $wslid sliding and $wtumb tumbling runs");
ok($slid > 0, "sliding windows with late rows logged (the late log compared too) in $slid runs");
ok($seeds_upd > 0 && $seeds_app > 0 && $late > 0,
	"both modes ran ($seeds_upd update, $seeds_app append) and rows were late in $late runs");

# each provider restores the other's checkpoint (lib/livecross.lua: a rate
# source, so a new process goes on where the last stopped): triggers 1-16
# on one, 17-40 on the other emit exactly the rows of one run of 1-40
my $cross = "$FindBin::Bin/lib/livecross.lua";
my ($rr, $ref) = run_sl({}, $bin, 'run', $cross, "$dir/cref", 0, 40);
my @want = sort grep { /^B/ } split /\n/, $ref;
ok($rr == 0 && @want >= 10, 'cross: the uninterrupted run emitted ' . scalar(@want) . ' rows');
for my $order (['bytes', 'live'], ['live', 'bytes']) {
	my $ck = "$dir/c-$order->[0]";
	my %env = (bytes => { STREAMLAB_STATE_PROVIDER => 'bytes' }, live => {});
	my ($r1, $o1) = run_sl($env{$order->[0]}, $bin, 'run', $cross, $ck, 0, 16);
	my ($r2, $o2) = run_sl($env{$order->[1]}, $bin, 'run', $cross, $ck, 16, 40);
	my @got = sort grep { /^B/ } split /\n/, "$o1\n$o2";
	ok($r1 == 0 && $r2 == 0, "cross $order->[0] then $order->[1]: both exit 0") or diag("$o1\n$o2");
	is(join("\n", @got), join("\n", @want),
		"cross $order->[0] then $order->[1]: the second restores the first's state files");
}
done_testing();
