#!/usr/bin/perl
# TUTORIAL.md pasted into the real workbench: every ```lua block as one
# bracketed paste (tmux paste-buffer -p: ESC[200~ ... ESC[201~, sent only
# because the workbench turned bracketed-paste mode on), in one session at
# 120x40, each block's output checked against the output the text shows
# (DocBlocks.pm).  A paste is ONE input: a block runs as a whole chunk,
# its chains and locals as Lua reads them.  Then the paste rules
# themselves: one input number for the whole paste, a paste without a
# final newline waits for Enter, and keys that start like a paste marker
# (arrows, PgUp) still work.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Test::More;
use Time::HiRes qw(sleep time);
use File::Temp ();
use Tmux;
use DocBlocks;

plan skip_all => 'tmux not installed' unless Tmux::available();

my %todo = ();

my @blocks = DocBlocks::read("$FindBin::Bin/../../TUTORIAL.md");
my $home = File::Temp::tempdir(CLEANUP => 1);
my $log = "$home/transcript";
my $t = Tmux->new(cols => 120, rows => 40, home => $home,
		  env => "STREAMLAB_TRANSCRIPT=$log");
ok($t->wait_for(qr/late \/ bad records/, 10), 'the workbench is up');

sub transcript {
	open(my $fh, '<', $log) or return '';
	local $/;
	my $s = <$fh> // '';
	return $s;
}

sub paste {
	my ($text) = @_;
	my ($fh, $file) = File::Temp::tempfile(DIR => $home);
	print $fh $text;
	close $fh;
	$t->run('load-buffer', '-b', 'p', $file);
	$t->run('paste-buffer', '-p', '-d', '-b', 'p', '-t', 't');
}

# Wait for the mark printed after what was sent; the transcript since start.
sub upto_mark {
	my ($start, $mark) = @_;
	DocBlocks::wait_prompt($t, 60) or diag("no prompt before $mark\n" . $t->screen);
	$t->type_line("print('$mark')");
	my $got = '';
	my $end = time + 60 * ($ENV{STREAMLAB_TUI_SLACK} // 4);
	while (time < $end) {
		$got = substr(transcript(), $start);
		last if $got =~ /^\Q$mark\E$/m;
		sleep 0.05;
	}
	$got =~ s/^\Q$mark\E\n.*//ms;
	return $got;
}

my $i = 0;
for my $b (@blocks) {
	$i++;
	my $start = length transcript();
	paste($b->{code});
	my $got = upto_mark($start, "-- end of block $i --");
	my @why = DocBlocks::check($b, $got);
	TODO: {
		local $TODO = $todo{$b->{chapter}};
		ok(!@why, "block $i (TUTORIAL.md:$b->{line}, chapter $b->{chapter}) pasted")
			or diag(join("\n", @why) . "\n--- it printed:\n$got\n--- screen:\n" . $t->screen);
	}
}

# One paste, one input: the error names line 3 of the paste's number.
my $start = length transcript();
paste("pa = 1\npb = pa + 1\nerror('boom ' .. pb)\n");
my $got = upto_mark($start, 'pasted 1');
like($got, qr/^error: \[(\d+)\]:3: boom 2$/m, 'a three-line paste is one input: the error is at its line 3');
paste("pe = 5\npf = pe * 2\n");
ok($t->wait_for(qr/^\|> pe = 5\s*\|\n\|pf = pe \* 2\s*\|$/m), 'the paste is echoed in the Output pane, line by line');

# Without a final newline the paste waits on the input line for Enter.
$start = length transcript();
paste("pc = 40\nprint(pc + 2)");
ok($t->wait_for(qr/^> pc = 40\x{21b5}print\(pc \+ 2\)$/m), 'a paste without a final newline waits on the input line');
unlike(transcript(), qr/^42$/m, 'and has not run');
$t->send_keys('Enter');
$got = upto_mark($start, 'pasted 2');
like($got, qr/\A42\n/, 'Enter runs it as one input');

# Keys that begin like the paste marker (ESC [) are not swallowed.
$t->send_text('pd = 1');
$t->send_keys(('Left') x 5);
$t->send_text('x');
$t->send_keys('Enter');
$t->type_line('pxd');
ok($t->wait_for(qr/^\|1\s*\|$/m), 'Left arrows still move the cursor (pxd = 1)');

$t->type_line(':quit');
$t->type_line('y');
ok($t->wait_for(qr/__EXIT=0/, 10), 'quits with 0');
done_testing();
