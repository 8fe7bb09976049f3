#!/bin/sh
# layers: the layering rules of STYLE.md, checked by reading the sources.
#   engine/  every file lives in one subsystem folder, engine/<folder>/, and
#            an include of an engine header names its folder
#            (#include "core/batch.h", include root -Iengine).  An include
#            points into the file's own folder or a lower layer, in the
#            order of the table below (lowest first).
#            engine/ never includes Lua, curses or readline headers; never
#            reads the wall clock (time, gettimeofday, clock_gettime) except
#            in engine/core/clock.c; never prints (printf, puts, putchar,
#            perror, stdout, stderr).
#            librdkafka headers only in engine/kafka/ (the Kafka source
#            and sink, engine/*/kafka_*.c, reach it through kafka_int.h).
#   lua/     never includes curses or readline.
#   at most one file includes <curses.h>/<ncurses.h>, at most one readline.
# Usage: sh tests/layers.sh [ROOT]   (default: the tree this script is in)
# Prints one line per violation, "file:line: what", and exits 1 if any.
#
# The layers of engine/, lowest first (engine/README.md says what each
# holds).  A folder may include its own headers and those of any folder
# above it in this table, never one below.
LAYERS='
core     values, buffers, errors, the clock, files, the event feed
formats  CSV and JSON text, the file formats
expr     expressions, functions, the SQL expression parser
plan     the logical plan, its analysis, the catalog, streaming words
sql      SQL statements (spark.sql) planned as the DataFrame API plans
state    the versioned state store, checkpoint logs
kafka    the Kafka client: librdkafka, the embedded cluster
sources  the sources behind sl_source_ops (memory, rate, socket, files, kafka)
exec     the push-model operators, batch and streaming
sinks    the sinks behind sl_sink_ops (console, memory, files, noop, kafka)
driver   the micro-batch driver, sessions, recovery
'
root=${1:-$(dirname "$0")/..}
cd "$root" || exit 2
LAYERS="$LAYERS" exec perl -e '
use strict;
use warnings;
my $bad = 0;
my (%curses, %readline);
my %rank;
for (split /\n/, $ENV{LAYERS}) { $rank{$1} = scalar keys %rank if /^(\w+)\s/ }
my $order = join(" < ", sort { $rank{$a} <=> $rank{$b} } keys %rank);
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
		push @inc, [$., $2, $1 eq "\""] if /^\s*#\s*include\s*([<"])([^>"]+)[>"]/;
	}
	return @inc;
}
my $lua = qr{^(?:lua|lauxlib|lualib|luaconf|lua5\.\d/.*)\.h$|^lua5\.\d/};
my $cur = qr{^(?:n?curses(?:w)?|ncursesw/n?curses|ncurses/n?curses)\.h$};
my $rl  = qr{^(?:readline|editline)/};
for my $f (sort(glob("engine/*.[ch]"), glob("engine/*/*.[ch]"), glob("lua/*.[ch]"), glob("repl/*.[ch]"))) {
	my ($dir) = $f =~ m{^(\w+)/};
	my ($sub) = $f =~ m{^engine/(\w+)/};
	if ($dir eq "engine" && !defined $sub) {
		fail($f, 1, "engine file outside a subsystem folder (engine/<folder>/, see tests/layers.sh)");
	} elsif (defined $sub && !exists $rank{$sub}) {
		fail($f, 1, "engine folder \x27$sub\x27 is not in the layer table of tests/layers.sh");
	}
	for my $i (includes($f)) {
		my ($n, $h, $q) = @$i;
		if (defined $sub && exists $rank{$sub} && $q) {
			my ($to) = $h =~ m{^(\w+)/[^/]+$};
			if (!defined $to || !exists $rank{$to}) {
				fail($f, $n, "engine includes \"$h\" (name the folder: \"<folder>/x.h\", one of $order)");
			} elsif ($rank{$to} > $rank{$sub}) {
				fail($f, $n, "$sub includes $h, a higher layer (includes point into the same folder or down: $order)");
			}
		}
		$curses{$f}++ if $h =~ $cur;
		$readline{$f}++ if $h =~ $rl;
		if ($dir eq "engine" && $h =~ m{^librdkafka/} && $f !~ m{^engine/kafka/\w+\.[ch]$}) {
			fail($f, $n, "engine includes <$h> (librdkafka only in engine/kafka/)");
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
		if ($f ne "engine/core/clock.c" && $l =~ /(?<![\w.>])(time|gettimeofday|clock_gettime)\s*\(/) {
			fail($f, $n, "engine calls $1() (read the clock through engine/core/clock.c)");
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
