# RewindScreen: what the rewind tests (tests/tui/06x-rewind-*.t) share:
# run a query batch by batch in the real workbench (a Tmux object),
# keeping the panes it showed after each batch, then `:rewind k` for
# every k and compare each pane with what it showed live then.
#
#   my %live = RewindScreen::step_live($t, \@arrivals, sub { ... type batch k's data ... });
#   RewindScreen::check_rewinds($t, \%live, $last);
#
# Test::More's ok/is count as the caller's tests.  Core Perl only.
package RewindScreen;
use strict;
use warnings;
use Test::More;
use LessonScreen qw();

our @PANES = qw(windows watermark checkpoint);

# For each batch k of @$arrivals: $add->($k, $arrivals->[$k]) types its
# data, then :step; the panes once its checkpoint row is committed.
sub step_live {
	my ($t, $arrivals, $add) = @_;
	my %live;
	for my $k (0 .. $#$arrivals) {
		$add->($k, $arrivals->[$k]);
		$t->type_line(':step');
		my $s = $t->settled(qr/^\|\s*$k mem .*commit/m);
		ok($s, "live: batch $k committed");
		$live{$k} = { map { $_ => LessonScreen::pane($s, $_) } @PANES };
	}
	return %live;
}

# :rewind k for k = $last .. 0: the banner, then each pane as it was
# live.  Returns the last screen.
sub check_rewinds {
	my ($t, $live, $last) = @_;
	my $s;
	for my $k (reverse 0 .. $last) {
		$t->type_line(":rewind $k");
		$s = $t->settled(qr/REWOUND to batch $k of $last/);
		ok($s, ":rewind $k: rewound");
		for my $p (@PANES) {
			is(LessonScreen::pane($s, $p), $live->{$k}{$p},
			   ":rewind $k: the $p pane as it was live");
		}
	}
	return $s;
}

1;
