#!/usr/bin/perl
# The ```lua blocks of README.md, TUTORIAL.md and lessons/README.md really
# run: each file's blocks, in order, as one script under `streamlab run`
# (they build on each other like one REPL session).
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
	my ($code, $in, $n, $line) = ('', 0, 0, 0);
	while (<$fh>) {
		$line++;
		if (!$in && /^```lua\s*$/) { $in = 1; $n++; $code .= "-- $doc:$line\n"; next }
		if ($in && /^```\s*$/) { $in = 0; next }
		$code .= $_ if $in;
	}
	ok($n > 0, "$doc has lua blocks");
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
