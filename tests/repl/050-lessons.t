#!/usr/bin/perl
# Every lesson passes `streamlab lesson FILE --check` (headless, every
# expected answer checked), `lesson N` finds lessons/NN-*.lua, and a wrong
# answer makes --check exit non-zero naming the check.
use strict;
use warnings;
use Test::More;
use IPC::Open3;
use File::Temp qw(tempdir tempfile);
use Time::HiRes qw(time);
use Cwd qw(abs_path);
use FindBin;

my $top = abs_path("$FindBin::Bin/../..");
my $bin = abs_path($ENV{STREAMLAB} // "$top/streamlab");
chdir $top or die "$top: $!";

sub run {
	my @args = @_;
	my $efh = tempfile(UNLINK => 1);
	open(my $null, '<', '/dev/null') or die;
	my $pid = open3('<&' . fileno($null), my $out, '>&' . fileno($efh), 'timeout', '60', $bin, @args);
	my $stdout = do { local $/; <$out> } // '';
	waitpid($pid, 0);
	my $st = $? >> 8;
	seek($efh, 0, 0);
	my $stderr = do { local $/; <$efh> } // '';
	return ($st, $stdout, $stderr);
}

my @lessons = sort glob('lessons/[0-9][0-9]-*.lua');
ok(@lessons >= 12, 'at least 12 lessons (' . scalar(@lessons) . ')');

for my $l (@lessons) {
	my $t0 = time;
	my ($st, $out, $err) = run('lesson', $l, '--check');
	my $dt = time - $t0;
	my ($plan) = $out =~ /^1\.\.(\d+)$/m;
	my $fails = () = $out =~ /^not ok/mg;
	is("$st $fails", '0 0', "$l passes --check (" . ($plan // 0) . sprintf(" checks, %.2fs)", $dt))
		or diag("stdout:\n$out\nstderr:\n$err");
	ok(($plan // 0) > 0, "$l checks at least one answer");
}

# N finds lessons/NN-*.lua
my ($st, $out, $err) = run('lesson', '1', '--check');
like($out, qr/^ok 1 - /m, 'lesson 1 --check runs lessons/01-*.lua');
is($st, 0, 'lesson 1 --check exits 0');
($st, $out, $err) = run('lesson', '99', '--check');
is($st, 2, 'lesson 99: exit 2');
like($err, qr/^streamlab: lesson: no lesson 99 \(\S*lessons\/99-\*\.lua/, 'lesson 99: names what is missing');

# N is found beside the program, never under the current directory: a
# folder of someone else's with a lessons/ of its own runs none of it
# (issue 16 finding 13); a path names a file explicitly
{
	my $evil = tempdir(CLEANUP => 1);
	mkdir "$evil/lessons" or die;
	mkdir "$evil/lessons/lib" or die;
	for my $f ("$evil/lessons/01-evil.lua", "$evil/lessons/lib/lesson.lua") {
		open(my $fh, '>', $f) or die "$f: $!";
		print $fh "print('EVIL RAN') os.exit(7)\n";
		close $fh;
	}
	chdir $evil or die;
	my ($st2, $out2, $err2) = run('lesson', '1', '--check');
	chdir $top or die;
	unlike($out2 . $err2, qr/EVIL RAN/, "lesson 1 in an untrusted folder does not run its lessons/");
	is($st2, 0, 'lesson 1 there is the one beside the program');
	like($out2, qr/^ok 1 - /m, 'and it checks its answers');
	chdir $evil or die;
	($st2, $out2, $err2) = run('lesson', "$evil/lessons/01-evil.lua", '--check');
	chdir $top or die;
	like($out2, qr/EVIL RAN/, 'a path runs the file it names');
}
($st, $out, $err) = run('lesson');
is($st, 2, 'lesson without N: usage error');

# a wrong answer fails --check with both values listed
my $dir = tempdir(CLEANUP => 1);
symlink("$top/lessons/lib", "$dir/lib") or die "symlink: $!";
open(my $fh, '>', "$dir/77-wrong.lua") or die;
print $fh <<'LUA';
local L = require("lesson")
local say, code, pause, expect = L.begin(77, "a wrong answer")
say [[text]]
code [[x = 6 * 7]]
expect("the answer", x, 42)
expect("a wrong answer", x, 41)
code([[error("boom")]], {fails = "boom"})
LUA
close $fh;
($st, $out, $err) = run('lesson', "$dir/77-wrong.lua", '--check');
is($st, 1, 'a mismatch: --check exits 1');
like($out, qr/^ok 1 - the answer$/m, 'the right answer passes');
like($out, qr/^not ok 2 - a wrong answer\n#      got: 42\n#     want: 41$/m, 'the wrong one lists got and want');
like($out, qr/^ok 3 - step 2 fails as it should$/m, 'a step meant to fail is checked');
like($err, qr/lesson 77: 1 of 3 checks failed: a wrong answer/, 'stderr names the failed check');

# plain mode (not a terminal, no --check): the narrative and code are shown
($st, $out, $err) = run('lesson', "$dir/77-wrong.lua");
is($st, 0, 'plain mode: a mismatch is shown, not fatal');
like($out, qr/== Lesson 77: a wrong answer ==/, 'plain mode: the title');
like($out, qr/^  \| x = 6 \* 7$/m, 'plain mode: the code as the learner sees it');
like($out, qr/MISMATCH/, 'plain mode: the mismatch is visible');

done_testing();
