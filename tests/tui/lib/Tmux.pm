# Tmux: drive the real streamlab in a private tmux server, for the TUI
# tests (STYLE.md: fixed size, TERM and LANG pinned, text sent with
# send-keys -l, the screen polled with capture-pane; never a bare sleep
# as the assertion).  Core Perl only.
#
#   my $t = Tmux->new(cols => 120, rows => 40, args => ['--line']);
#   $t->send_text('1+1'); $t->send_keys('Enter');
#   ok($t->wait_for(qr/^2$/m), '1+1');
#
# Each object owns its tmux server (-L unique socket, -f /dev/null), and a
# private HOME, so the user's tmux and history are never touched; the
# server is killed when the object goes away.  The program's exit status
# shows as "__EXIT=<n>" when it ends.
package Tmux;
use strict;
use warnings;
use Cwd qw(abs_path);
use File::Temp qw(tempdir);
use Time::HiRes qw(sleep time);

sub new {
	my ($class, %o) = @_;
	my $self = bless {}, $class;
	my $bin = abs_path($ENV{STREAMLAB} // './streamlab');
	$self->{home} = $o{home} // tempdir(CLEANUP => 1);
	$self->{sock} = "sl-tui-$$-" . int(rand(1e9));
	$self->{tmux} = ['tmux', '-L', $self->{sock}, '-f', '/dev/null'];
	my $args = join(' ', map { "'$_'" } @{$o{args} // []});
	my $env = "env HOME=$self->{home} TERM=tmux-256color LANG=C.UTF-8 LC_ALL= TZ=UTC INPUTRC=/dev/null";
	$env .= " $o{env}" if $o{env};
	$self->run('new-session', '-d', '-s', 't', '-x', $o{cols} // 120,
		   '-y', $o{rows} // 40, '-c', $o{dir} // $self->{home},
		   "$env $bin $args; echo __EXIT=\$?; sleep 60");
	return $self;
}

sub available {
	return grep { -x "$_/tmux" } split /:/, $ENV{PATH};
}

sub home { $_[0]{home} }

sub run {
	my ($self, @args) = @_;
	system(@{$self->{tmux}}, @args) == 0 or die "tmux @args failed\n";
}

sub screen {
	my ($self) = @_;
	my @cmd = (@{$self->{tmux}}, 'capture-pane', '-p', '-t', 't');
	open(my $fh, '-|', @cmd) or return '';
	local $/;
	my $s = <$fh> // '';
	close $fh;
	utf8::decode($s);
	return $s;
}

sub send_text { my ($self, $s) = @_; $self->run('send-keys', '-t', 't', '-l', $s) }
sub send_keys { my ($self, @k) = @_; $self->run('send-keys', '-t', 't', @k) }

# Type a line and press Enter.
sub type_line {
	my ($self, $s) = @_;
	$self->send_text($s);
	$self->send_keys('Enter');
}

sub resize {
	my ($self, $x, $y) = @_;
	$self->run('resize-window', '-t', 't', '-x', $x, '-y', $y);
}

sub cursor {
	my ($self) = @_;
	my @cmd = (@{$self->{tmux}}, 'display', '-p', '-t', 't', '#{cursor_x},#{cursor_y}');
	open(my $fh, '-|', @cmd) or return '';
	my $s = <$fh> // '';
	chomp $s;
	return $s;
}

# Poll the screen until it matches re (every 50 ms, up to timeout
# seconds); returns the screen, or '' after a timeout (printing what was
# there as a diagnostic).  Timeouts are stretched by STREAMLAB_TUI_SLACK
# (default 4): a match returns at once, so only a failure waits longer, and
# `make test` runs these beside CPU-heavy kill tests.
sub wait_for {
	my ($self, $re, $timeout) = @_;
	my $end = time + ($timeout // 5) * ($ENV{STREAMLAB_TUI_SLACK} // 4);
	while (time < $end) {
		my $s = $self->screen;
		return $s if $s =~ $re;
		sleep 0.05;
	}
	Test::More::diag("timeout waiting for $re; screen:\n" . $self->screen);
	return '';
}

# The screen once re matches and the frame is whole: curses sends a frame
# top to bottom, so a capture can catch the banner of the new frame above
# the panes of the old one; two equal captures in a row are a whole one.
sub settled {
	my ($self, $re, $timeout) = @_;
	my $s = $self->wait_for($re, $timeout) or return '';
	for (1 .. 100) {
		select(undef, undef, undef, 0.05);
		my $n = $self->screen;
		return $n if $n eq $s && $n =~ $re;
		$s = $n;
	}
	return $s;
}

sub DESTROY {
	my ($self) = @_;
	system(@{$self->{tmux}}, 'kill-server') if $self->{tmux};
}

1;
