#!/usr/bin/perl
# `streamlab run FILE`, `-e`, `--help`, `--version` and usage errors:
# exit codes, the "error: FILE:LINE: message" format, the arg table.
use strict;
use warnings;
use Test::More;
use IPC::Open3;
use File::Temp qw(tempfile tempdir);
use File::Path qw(make_path);

my $bin = $ENV{STREAMLAB} // './streamlab';
my $dir = tempdir(CLEANUP => 1);

sub run_sl {
	my (@args) = @_;
	my $efh = tempfile(UNLINK => 1);
	open(my $null, '<', '/dev/null') or die;
	my $pid = open3('<&' . fileno($null), my $out, '>&' . fileno($efh), $bin, @args);
	my $stdout = do { local $/; <$out> } // '';
	waitpid($pid, 0);
	my $status = $? >> 8;
	seek($efh, 0, 0);
	my $stderr = do { local $/; <$efh> } // '';
	return ($stdout, $stderr, $status);
}

sub script {
	my ($name, $text) = @_;
	my $path = "$dir/$name";
	open(my $fh, '>', $path) or die "$path: $!";
	print $fh $text;
	close $fh;
	return $path;
}

make_path("$dir/lib");
script('lib/helper.lua', "return { twice = function(x) return 2 * x end }\n");
my $ok = script('ok.lua', <<'LUA');
local helper = require("helper")
print("twice", helper.twice(21))
print("arg", arg[0]:match("[^/]*$"), #arg, arg[1], arg[2], arg[-1])
print("dots", ...)
return 99
LUA
my ($out, $err, $st) = run_sl('run', $ok, 'one', 'two');
is($st, 0, 'run: exit 0 on success');
is($out, "twice\t42\narg\tok.lua\t2\tone\ttwo\trun\ndots\tone\ttwo\n",
   'run: arg table as lua.c builds it, ..., lib/ on package.path, results not printed');
is($err, '', 'run: nothing on stderr');

my $bad = script('bad.lua', "print(\"before\")\nlocal t = nil\nlocal x = t.field\nprint(\"after\")\n");
($out, $err, $st) = run_sl('run', $bad);
is($st, 1, 'run: exit 1 on the first error');
is($out, "before\n", 'run: output up to the error');
is($err, "error: $bad:3: attempt to index a nil value (local 't')\nstack traceback:\n\t$bad:3: in main chunk\n",
   'run: error: FILE:LINE: message + traceback on stderr');

my $syn = script('syntax.lua', "local x = 1\nlocal = 2\n");
($out, $err, $st) = run_sl('run', $syn);
is($st, 1, 'run: syntax error exits 1');
is($err, "error: $syn:2: <name> expected near '='\n", 'run: syntax error names file and line');

($out, $err, $st) = run_sl('run', "$dir/missing.lua");
is($st, 1, 'run: missing file exits 1');
like($err, qr{^error: cannot open \Q$dir\E/missing\.lua: No such file or directory$}, 'run: missing file named');

for my $case (['3', 3], ['true', 0], ['false', 1], ['', 0]) {
	my $s = script("exit$case->[1].lua", "print(\"x\")\nos.exit($case->[0])\nprint(\"not reached\")\n");
	($out, $err, $st) = run_sl('run', $s);
	is($st, $case->[1], "run: os.exit($case->[0]) -> $case->[1]");
	is($out, "x\n", "run: os.exit($case->[0]) stops the script");
}
my $trap = script('trap.lua', "pcall(os.exit, 4)\nprint(\"not reached\")\n");
($out, $err, $st) = run_sl('run', $trap);
is("$st $out", "4 ", 'run: pcall cannot swallow os.exit');

($out, $err, $st) = run_sl('-e', 'x = 20', '-e', 'return x + 1, "ok"');
is("$st|$out|$err", "0|21\t\"ok\"\n|", '-e: chunks run in order, returned values printed');
($out, $err, $st) = run_sl('-e', 'print("a")', '-e', 'error("bad")', '-e', 'print("c")');
is($st, 1, '-e: an error exits 1');
is($out, "a\n", '-e: later chunks do not run');
like($err, qr/^error: \(command line\):1: bad\nstack traceback:\n/, '-e: chunk name (command line)');
($out, $err, $st) = run_sl('-e', 'os.exit(6)');
is($st, 6, '-e: os.exit code');

($out, $err, $st) = run_sl('--help');
is($st, 0, '--help exits 0');
like($out, qr/^usage: streamlab/, '--help: usage');
like($out, qr/^\s+streamlab run FILE\.lua/m, '--help: run mode');
like($out, qr/--plain/, '--help: plain mode');
like($out, qr/-e CHUNK/, '--help: -e');
like($out, qr/lesson N\|FILE\s+run lesson N/, '--help: lesson documented');
like($out, qr/kafka \[--topic NAME:PARTITIONS\]\.\.\.\s+\S/, '--help: kafka serves the embedded cluster');
unlike($out, qr/kafka \[--topic NAME:PARTITIONS\]\.\.\.\s+\(coming\)/, '--help: kafka no longer marked coming');

($out, $err, $st) = run_sl('--version');
is($st, 0, '--version exits 0');
like($out, qr/^streamlab 0\.1\.0 \(Lua 5\.4\.\d+, librdkafka \d+\.\d+\.\d+\)\n\z/, '--version format');

($out, $err, $st) = run_sl('--frobnicate');
is("$st|$out|$err", "2||streamlab: unknown option '--frobnicate' (try 'streamlab --help')\n",
   'unknown option: one line, exit 2');
($out, $err, $st) = run_sl('frobnicate');
is($st, 2, 'unknown command: exit 2');
($out, $err, $st) = run_sl('run');
is("$st|$err", "2|streamlab: run: missing FILE.lua (try 'streamlab --help')\n", 'run without a file: exit 2');
($out, $err, $st) = run_sl('-e');
is($st, 2, '-e without a chunk: exit 2');

done_testing();
