#!/usr/bin/perl
# The ```lua blocks of README.md, TUTORIAL.md and lessons/README.md really
# run: each file's blocks, in order, as one script under `streamlab run`
# (they build on each other like one REPL session: a later block sees the
# globals and top-level locals of the earlier ones).  A block opened with
# ```lua fails is meant to fail: it runs inside pcall and must raise an
# error (the error is printed; no error fails the test).  TUTORIAL.md must
# have at least 15 blocks.
use strict;
use warnings;
use Test::More;
use IPC::Open3;
use File::Temp qw(tempfile);
use FindBin;

my $bin = $ENV{STREAMLAB} // './streamlab';
my $top = "$FindBin::Bin/../..";

for my $doc ('README.md', 'TUTORIAL.md', 'lessons/README.md') {
	open(my $fh, '<', "$top/$doc") or die "$doc: $!";
	my ($code, $in, $n, $line, $fails, $start) = ('', 0, 0, 0, 0, 0);
	while (<$fh>) {
		$line++;
		if (!$in && /^```lua(\s+fails)?\s*$/) {
			($in, $fails, $start) = (1, defined $1, $line);
			$n++;
			$code .= "-- $doc:$line\n";
			$code .= "do local ok_, err_ = pcall(function()\n" if $fails;
			next;
		}
		if ($in && /^```\s*$/) {
			$in = 0;
			$code .= "end)\nif ok_ then error('$doc:$start: this block is marked fails but ran without error', 0) end\n"
			       . "print('(expected error) ' .. tostring(err_)) end\n" if $fails;
			next;
		}
		$code .= $_ if $in;
	}
	ok($n > 0, "$doc has lua blocks");
	ok($n >= 15, "$doc has at least 15 lua blocks ($n)") if $doc eq 'TUTORIAL.md';
	my ($sfh, $script) = tempfile(SUFFIX => '.lua', UNLINK => 1);
	print $sfh $code;
	close $sfh;
	my $efh = tempfile(UNLINK => 1);
	open(my $null, '<', '/dev/null') or die;
	my $pid = open3('<&' . fileno($null), my $out, '>&' . fileno($efh), $bin, 'run', $script);
	my $stdout = do { local $/; <$out> } // '';
	waitpid($pid, 0);
	my $st = $? >> 8;
	seek($efh, 0, 0);
	my $stderr = do { local $/; <$efh> } // '';
	is("$st $stderr", '0 ', "$doc: its $n lua blocks run without error")
		or diag("script:\n$code\nstdout:\n$stdout");
}

done_testing();
