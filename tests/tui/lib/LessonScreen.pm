# LessonScreen: step a lesson in the real workbench (a Tmux object) and
# read one pane of the screen, for tests/tui/03x-lesson-*.t.
#
#   my $t = Tmux->new(cols => 120, rows => 40, args => ['lesson', '8'], dir => $top);
#   my $s = LessonScreen::key_until($t, qr/check batches 0\.\.4/);   # Space, then wait
#   like(LessonScreen::pane($s, 'checkpoint'), qr/CRASH/, '...');
#
# pane() finds a box by its title ("+-- checkpoint ---...+") and returns
# the text inside it, one line per row, so a check on the checkpoint pane
# cannot be satisfied by the same words in the Output pane.  Only the box
# drawing (+, -, |) is relied on, not the panes' sizes or column layout,
# which other work changes.  Core Perl only.
package LessonScreen;
use strict;
use warnings;

# Patient by default: a lesson step runs queries, and `make test` runs
# these beside CPU-heavy tests (Tmux.pm stretches this by its slack too).
our $TIMEOUT = 25;

# The text inside the box titled $title (a prefix of the title text), or
# '' when the screen has no such box.
sub pane {
	my ($screen, $title) = @_;
	my @lines = split /\n/, $screen, -1;
	for my $i (0 .. $#lines) {
		my $at = index($lines[$i], "+-- $title");
		next if $at < 0;
		my $end = index($lines[$i], '+', $at + 4);
		$end = length($lines[$i]) if $end < 0;
		my @in;
		for my $j ($i + 1 .. $#lines) {
			my $row = $lines[$j];
			last if length($row) <= $at || substr($row, $at, 1) eq '+';
			push @in, substr($row, $at + 1, $end - $at - 1);
		}
		return join("\n", @in);
	}
	return '';
}

# Press a key (Space by default) and wait until the screen matches $re;
# returns the screen ('' on a timeout, with the screen as a diagnostic).
sub key_until {
	my ($t, $re, $key) = @_;
	$t->send_keys($key // 'Space');
	return $t->wait_for($re, $TIMEOUT);
}

# Wait until the pane titled $title matches $re; returns the pane's text
# ('' after the timeout, with the screen as a diagnostic).
sub pane_until {
	my ($t, $title, $re, $timeout) = @_;
	my $end = time + ($timeout // $TIMEOUT) * ($ENV{STREAMLAB_TUI_SLACK} // 4);
	my $s;
	while (time < $end) {
		$s = $t->screen;
		my $p = pane($s, $title);
		return $p if $p =~ $re;
		select(undef, undef, undef, 0.1);
	}
	Test::More::diag("timeout waiting for $re in pane '$title'; screen:\n" . ($s // ''));
	return '';
}

# The strip line at the top (queries: ...).
sub strip {
	my ($screen) = @_;
	my ($line) = $screen =~ /^(queries:.*)$/m;
	return $line // '';
}

# The line under the panes (the focused query's progress).
sub progress {
	my ($screen) = @_;
	my ($line) = $screen =~ /^( \S.*\bbatch \d+.*)$/m;
	return $line // '';
}

1;
