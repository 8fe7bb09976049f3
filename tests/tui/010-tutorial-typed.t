#!/usr/bin/perl
# TUTORIAL.md typed into the real workbench as a reader types it: every
# ```lua block, line by line (send-keys, Enter, wait for the prompt), in
# one session at 120x40, and each block's output checked against the
# output the text shows (DocBlocks.pm).  What the program printed is read
# from its transcript (STREAMLAB_TRANSCRIPT: everything the Output pane was
# given, so a result taller than the pane is still checked whole); the
# screen is checked too: the last shown line is in the Output pane.
#
# This is the test of the continuation rule (README.md "Typing and
# pasting"): chains continued on lines starting with ':name(' or
# '.name', and `local total = 0` lasting to the next line.
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

# Chapter 8 crashes where the text says only once the crash is ordered
# with the background trigger (issue 13 item 2, the crash helper's fix).
my %todo = ();

my @blocks = DocBlocks::read("$FindBin::Bin/../../TUTORIAL.md");
ok(@blocks >= 15, scalar(@blocks) . " lua blocks in TUTORIAL.md");

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

sub bottom {
	my @l = split /\n/, $t->screen;
	return $l[-1] // '';
}

# Wait until cond(bottom line) holds; false after a timeout.
sub wait_bottom {
	my ($cond, $timeout) = @_;
	my $end = time + $timeout * ($ENV{STREAMLAB_TUI_SLACK} // 4);
	while (time < $end) {
		return 1 if $cond->(bottom());
		sleep 0.03;
	}
	return 0;
}

# Type one line as a person would: the text, seen on the input line, then
# Enter, then the prompt back (> or >>, nothing typed, Lua not running).
sub type_line {
	my ($line) = @_;
	if ($line ne '') {
		$t->send_text($line);
		my $tail = substr($line, -12);
		$tail =~ s/\s+$//;
		wait_bottom(sub { index($_[0], $tail) >= 0 }, 5)
			or diag("typed text not on the input line: $line");
	}
	$t->send_keys('Enter');
	DocBlocks::wait_prompt($t, 60)
		or diag("no prompt after: $line\n" . $t->screen);
}

my $i = 0;
for my $b (@blocks) {
	$i++;
	my $start = length transcript();
	type_line($_) for split /\n/, $b->{code};
	my $screen = $t->screen;
	my $mark = "-- end of block $i --";
	type_line("print('$mark')");
	my $got = '';
	my $end = time + 30 * ($ENV{STREAMLAB_TUI_SLACK} // 4);
	while (time < $end) {
		$got = substr(transcript(), $start);
		last if $got =~ /^\Q$mark\E$/m;
		sleep 0.05;
	}
	$got =~ s/^\Q$mark\E\n.*//ms;
	my @why = DocBlocks::check($b, $got);
	my $re = DocBlocks::screen_re($b);
	push @why, "the Output pane does not show /$re/"
		if defined $re && !@why && $screen !~ /^\|.*$re/m;
	TODO: {
		local $TODO = $todo{$b->{chapter}};
		ok(!@why, "block $i (TUTORIAL.md:$b->{line}, chapter $b->{chapter}) typed line by line")
			or diag(join("\n", @why) . "\n--- it printed:\n$got\n--- screen:\n$screen");
	}
}

like(transcript(), qr/rows written now:\s+2/, 'chapter 5: the top-level local total lasted across lines');
$t->type_line(':quit');
$t->type_line('y');
ok($t->wait_for(qr/__EXIT=0/, 10), 'quits with 0');
done_testing();
