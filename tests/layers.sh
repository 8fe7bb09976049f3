#!/bin/sh
# layers: the layering rules of STYLE.md, checked by reading the sources.
#   engine/  never includes Lua, curses or readline headers; never reads the
#            wall clock (time, gettimeofday, clock_gettime) except in
#            engine/clock.c; never prints (printf, puts, putchar, perror,
#            stdout, stderr).
#            librdkafka headers only in engine/kafka_*.[ch].
#   lua/     never includes curses or readline.
#   at most one file includes <curses.h>/<ncurses.h>, at most one readline.
# Usage: sh tests/layers.sh [ROOT]   (default: the tree this script is in)
# Prints one line per violation, "file:line: what", and exits 1 if any.
root=${1:-$(dirname "$0")/..}
cd "$root" || exit 2
exec perl -e '
use strict;
use warnings;
my $bad = 0;
my (%curses, %readline);
sub fail { my ($f, $n, $what) = @_; print "layers: $f:$n: $what\n"; $bad = 1 }
# Source text with comments and string/char literals blanked, lines kept.
sub code_lines {
	my ($f) = @_;
	open(my $fh, "<", $f) or die "layers: cannot read $f: $!\n";
	local $/;
	my $s = <$fh>;
	$s =~ s{/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\x27(?:\\.|[^\x27\\\n])*\x27}
	       { my $m = $&; $m =~ tr/\n//cd; " $m" }gse;
	return split /\n/, $s, -1;
}
sub includes {
	my ($f) = @_;
	open(my $fh, "<", $f) or die "layers: cannot read $f: $!\n";
	my @inc;
	while (<$fh>) {
		push @inc, [$., $1] if /^\s*#\s*include\s*[<"]([^>"]+)[>"]/;
	}
	return @inc;
}
my $lua = qr{^(?:lua|lauxlib|lualib|luaconf|lua5\.\d/.*)\.h$|^lua5\.\d/};
my $cur = qr{^(?:n?curses(?:w)?|ncursesw/n?curses|ncurses/n?curses)\.h$};
my $rl  = qr{^(?:readline|editline)/};
for my $f (sort(glob("engine/*.[ch]"), glob("lua/*.[ch]"), glob("repl/*.[ch]"))) {
	my ($dir) = $f =~ m{^(\w+)/};
	for my $i (includes($f)) {
		my ($n, $h) = @$i;
		$curses{$f}++ if $h =~ $cur;
		$readline{$f}++ if $h =~ $rl;
		if ($dir eq "engine" && $h =~ m{^librdkafka/} && $f !~ m{^engine/kafka_\w+\.[ch]$}) {
			fail($f, $n, "engine includes <$h> (librdkafka only in engine/kafka_*.c)");
		}
		if ($dir eq "engine" && ($h =~ $lua || $h =~ $cur || $h =~ $rl)) {
			fail($f, $n, "engine includes <$h> (engine must not use Lua, curses or readline)");
		} elsif ($dir eq "lua" && ($h =~ $cur || $h =~ $rl)) {
			fail($f, $n, "lua/ includes <$h> (only repl/ may use curses or readline)");
		}
	}
	next unless $dir eq "engine";
	my $n = 0;
	for my $l (code_lines($f)) {
		$n++;
		if ($f ne "engine/clock.c" && $l =~ /(?<![\w.>])(time|gettimeofday|clock_gettime)\s*\(/) {
			fail($f, $n, "engine calls $1() (read the clock through engine/clock.c)");
		}
		if ($l =~ /(?<![\w.>])(printf|vprintf|puts|putchar|perror)\s*\(/ ||
		    $l =~ /\b(stdout|stderr)\b/) {
			fail($f, $n, "engine prints ($1) (return text or an sl_err instead)");
		}
	}
}
for my $set ([\%curses, "<curses.h>/<ncurses.h>"], [\%readline, "readline headers"]) {
	my @f = sort keys %{$set->[0]};
	if (@f > 1) {
		print "layers: more than one file includes $set->[1]: @f\n";
		$bad = 1;
	}
}
exit $bad;
'
