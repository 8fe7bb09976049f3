#!/usr/bin/perl
# The readline REPL without the screen (--line) in a private tmux server: welcome,
# evaluation, continuation, history, completion, Ctrl-C, Ctrl-D.
# Core modules only.  Polls capture-pane every 50 ms; never a bare sleep.
use strict;
use warnings;
use Test::More;
use File::Temp qw(tempdir);
use Time::HiRes qw(sleep time);
use Cwd qw(abs_path);

my $bin = abs_path($ENV{STREAMLAB} // './streamlab');
plan skip_all => 'tmux not installed' unless grep { -x "$_/tmux" } split /:/, $ENV{PATH};

my $home = tempdir(CLEANUP => 1);
my $sock = "sl-tty-$$-" . int(rand(1e9));
my @tmux = ('tmux', '-L', $sock, '-f', '/dev/null');

sub tmux { system(@tmux, @_) == 0 or die "tmux @_ failed\n" }
sub screen { my $s = `@tmux capture-pane -p -t t`; return $s }
sub send_text { tmux('send-keys', '-t', 't', '-l', $_[0]) }
sub send_keys { tmux('send-keys', '-t', 't', @_) }

# Poll the pane until it matches re; returns the screen (or '' on timeout).
sub wait_for {
	my ($re, $timeout) = @_;
	my $end = time + ($timeout // 5) * ($ENV{STREAMLAB_TUI_SLACK} // 4);
	while (time < $end) {
		my $s = screen();
		return $s if $s =~ $re;
		sleep 0.05;
	}
	diag("timeout waiting for $re; screen:\n" . screen());
	return '';
}

END { system(@tmux, 'kill-server') if defined $sock; }

# HOME is private, so the history file is ours.
tmux('new-session', '-d', '-s', 't', '-x', 100, '-y', 30, '-c', $home,
     "env HOME=$home TERM=tmux-256color LANG=C.UTF-8 INPUTRC=/dev/null $bin --line; echo __EXIT=\$?; sleep 30");

ok(wait_for(qr/Try:.*\n.*createDataFrame.*\n.*show\(\).*\n.*:help/s), 'welcome says what to type first');
ok(wait_for(qr/^> ?$/m), 'prompt shown');

send_text('1+1'); send_keys('Enter');
ok(wait_for(qr/^> 1\+1\n2\n> ?$/m), '1+1 -> 2');

send_text('function sq(x)'); send_keys('Enter');
ok(wait_for(qr/^>> ?$/m), 'continuation prompt >>');
send_text('return x * x'); send_keys('Enter');
send_text('end'); send_keys('Enter');
send_text('sq(12)'); send_keys('Enter');
ok(wait_for(qr/^>> end\n> sq\(12\)\n144\n/m), 'multi-line function defined and called');

send_keys('Up');
ok(wait_for(qr/^> sq\(12\)$/m), 'Up recalls the last entry');
send_keys('C-u');

my $has_spark = `printf 'type(spark) == "table" and spark.createDataFrame ~= nil\n' | "$bin" --plain` =~ /^true$/m;
if ($has_spark) {
	send_text('spark.crea'); send_keys('Tab');
	ok(wait_for(qr/^> spark\.createDataFrame$/m), 'Tab completes spark.crea');
	send_keys('C-u');
	send_text('df = spark.createDataFrame({{1, "a"}}, "id INT, name STRING")'); send_keys('Enter');
	send_text('df:printS'); send_keys('Tab');
	ok(wait_for(qr/^> df:printSchema$/m), 'Tab completes a method after ":"');
} else {
	send_text('string.fo'); send_keys('Tab');
	ok(wait_for(qr/^> string\.format$/m), 'Tab completes string.fo (no spark.createDataFrame yet)');
}
send_keys('C-u');

send_text('while true do end'); send_keys('Enter');
ok(wait_for(qr/^> while true do end$/m), 'busy loop started');
send_keys('C-c');
ok(wait_for(qr/interrupted!\nstack traceback:\n(?:.*\n)*> ?$/m), 'Ctrl-C interrupts running Lua, prompt comes back');

send_text('x = 1 +');
# the line on the screen first: a Ctrl-C that overtakes the typed keys
# (the last interrupt's prompt still being drawn, a loaded machine)
# would clear a shorter line
wait_for(qr/^> x = 1 \+$/m);
send_keys('C-c');
ok(wait_for(qr/^> x = 1 \+\^C\n> ?$/m), 'Ctrl-C on a half-typed line clears it');
send_text('for i = 1, 3 do'); send_keys('Enter');
ok(wait_for(qr/^>> ?$/m), 'continuation started');
send_keys('C-c');
ok(wait_for(qr/^>> \^C\n> ?$/m), 'Ctrl-C on a continuation line drops the chunk');
send_text('x = 2'); send_keys('Enter');
send_text('x'); send_keys('Enter');
ok(wait_for(qr/^> x\n2\n> ?$/m), 'session alive after Ctrl-C');

send_text(':help'); send_keys('Enter');
ok(wait_for(qr/:quit\s+leave streamlab/), ':help lists commands');

send_keys('C-d');
ok(wait_for(qr/__EXIT=0/), 'Ctrl-D exits with code 0');

my $hist = do { local (@ARGV, $/) = ("$home/.streamlab_history"); <> } // '';
like($hist, qr/function sq\(x\)\nreturn x \* x\nend/, 'history file keeps the multi-line chunk whole');

done_testing();
