package CkTest;
# Helpers for the real-process recovery tests (tests/repl/02N-*.t):
# input files for lib/ckrun.lua, an independent oracle for its output, a
# reader of the json sink that trusts only _spark_metadata (as Spark's
# readers do), running the program with a crash point or a kill, and
# hashing a directory tree (to show a refused start changed nothing).
#
# The oracle: record id i (1..N) has word "k" . (i % 7) and event time
# 12:00:00 + 6*i seconds; the program counts and sums ids per 1-minute
# window and word.  The last input file holds one "flush" record far in
# the future, whose watermark closes every other window; its own window is
# never written.  So the expected output is a pure function of N.
use strict;
use warnings;
use Exporter 'import';
use File::Path qw(make_path remove_tree);
use File::Basename qw(dirname);
use POSIX qw(:sys_wait_h);
use Time::HiRes qw(time sleep);
use JSON::PP;
use Digest::SHA qw(sha256_hex);

our @EXPORT_OK = qw(bin ckrun write_input expected read_sink compare_rows run_prog
		    tree_hash stray_temps part_lines spawn finish tally_sink);

my $json = JSON::PP->new->canonical;

sub bin { return $ENV{STREAMLAB} // './streamlab' }
sub ckrun { return dirname(__FILE__) . '/ckrun.lua' }

sub ts {
	my ($sec) = @_; # seconds after 2026-01-01 12:00:00
	my $h = 12 + int($sec / 3600);
	my $m = int(($sec % 3600) / 60);
	my $s = $sec % 60;
	return sprintf('2026-01-01 %02d:%02d:%02d', $h, $m, $s);
}

sub put_file {
	my ($dir, $name, $text, $mtime) = @_;
	my $tmp = "$dir/.$name.tmp";
	open(my $fh, '>', $tmp) or die "$tmp: $!";
	print $fh $text;
	close $fh or die "$tmp: $!";
	utime($mtime, $mtime, $tmp) or die "utime $tmp: $!";
	rename($tmp, "$dir/$name") or die "rename $tmp: $!";
}

# Files of $per records for ids $from..$to (numbered from $first_file),
# then, when $flush, the flush file.  mtimes increase with the file number.
sub write_input {
	my (%o) = @_;
	my ($dir, $from, $to, $per) = @o{qw(dir from to per)};
	my $fileno = $o{first_file} // 1;
	make_path($dir);
	for (my $i = $from; $i <= $to; $i += $per) {
		my $text = '';
		for my $id ($i .. ($i + $per - 1 > $to ? $to : $i + $per - 1)) {
			$text .= sprintf(qq({"id":%d,"word":"k%d","t":"%s"}\n), $id, $id % 7, ts(6 * $id));
		}
		put_file($dir, sprintf('%04d.json', $fileno), $text, 1767000000 + $fileno);
		$fileno++;
	}
	if ($o{flush}) {
		put_file($dir, sprintf('%04d.json', $fileno),
			 sprintf(qq({"id":0,"word":"flush","t":"%s"}\n), ts(6 * $to + 3 * 3600)),
			 1767000000 + $fileno);
		$fileno++;
	}
	return $fileno;
}

# The rows the program must write for ids 1..$n: "start|word" => [cnt, sm].
sub expected {
	my ($n) = @_;
	my %rows;
	for my $id (1 .. $n) {
		my $start = ts(60 * int(6 * $id / 60));
		my $r = $rows{"$start|k" . ($id % 7)} //= [0, 0];
		$r->[0]++;
		$r->[1] += $id;
	}
	return \%rows;
}

sub slurp {
	my ($path) = @_;
	open(my $fh, '<', $path) or return undef;
	local $/;
	my $s = <$fh>;
	close $fh;
	return $s;
}

# The sink's rows as listed by _spark_metadata/0..: a list of
# [start, word, cnt, sm], the number of log entries, the number of part
# files on disk that no log entry lists (invisible to readers), and the
# first problem met (an unreadable log entry or part file), or undef.
sub read_sink {
	my ($out) = @_;
	my (@rows, %listed, $problem);
	my $meta = "$out/_spark_metadata";
	opendir(my $dh, $meta) or return ([], 0, 0, undef);
	# N, and N.compact (every entry so far) at each compactInterval
	my @ids = sort { $a <=> $b } map { /^(\d+)(?:\.compact)?$/ ? ($1) : () } readdir($dh);
	closedir $dh;
	for my $id (@ids) {
		my $text = slurp(-e "$meta/$id.compact" ? "$meta/$id.compact" : "$meta/$id");
		my @lines = split /\n/, $text // '';
		if (!@lines || $lines[0] ne 'v1') {
			$problem //= "$meta/$id: no v1 line";
			next;
		}
		for my $l (@lines[1 .. $#lines]) {
			my $e = eval { $json->decode($l) };
			if (!$e) {
				$problem //= "$meta/$id: bad entry";
				next;
			}
			(my $base = $e->{path}) =~ s{.*/}{};
			next if $listed{$base}++; # a compact repeats earlier entries
			my $data = slurp("$out/$base");
			if (!defined $data) {
				$problem //= "$out/$base (listed in $meta/$id): unreadable";
				next;
			}
			for my $r (split /\n/, $data) {
				my $o = eval { $json->decode($r) };
				if (!$o) {
					$problem //= "$out/$base: bad row";
					next;
				}
				push @rows, [$o->{start}, $o->{word}, $o->{cnt}, $o->{sm}];
			}
		}
	}
	opendir($dh, $out) or die "$out: $!";
	my $unlisted = grep { /^part-/ && !$listed{$_} } readdir($dh);
	closedir $dh;
	return (\@rows, scalar(@ids), $unlisted, $problem);
}

# Compare sink rows with expected(n): (lost records, duplicated rows,
# wrong rows, extra rows) and a one-line summary.
sub compare_rows {
	my ($rows, $want) = @_;
	my %got;
	my ($dup, $wrong, $extra) = (0, 0, 0);
	for my $r (@$rows) {
		my $k = "$r->[0]|$r->[1]";
		if ($got{$k}) { $dup++; next }
		$got{$k} = $r;
	}
	my ($lost, $total_want, $total_got) = (0, 0, 0);
	for my $k (keys %$want) {
		$total_want += $want->{$k}[0];
		if (!$got{$k}) { $lost += $want->{$k}[0]; next }
		$wrong++ if $got{$k}[2] != $want->{$k}[0] || $got{$k}[3] != $want->{$k}[1];
	}
	$total_got += $_->[2] for @$rows;
	for my $k (keys %got) { $extra++ unless $want->{$k} }
	my $line = sprintf('expected %d records in %d rows, got %d records in %d rows, '
			   . 'duplicates %d, missing %d, wrong %d, extra %d',
			   $total_want, scalar(keys %$want), $total_got, scalar(@$rows),
			   $dup, $lost, $wrong, $extra);
	return ($lost, $dup, $wrong, $extra, $line);
}

# Run the program to its end: (exit code or undef, signal, stdout, stderr).
sub run_prog {
	my ($env, @args) = @_;
	my $pid = spawn($env, @args);
	return finish($pid);
}

my %outs;

sub spawn {
	my ($env, @args) = @_;
	my $base = "/tmp/cktest.$$." . int(rand(1e9));
	my $pid = fork() // die "fork: $!";
	if ($pid == 0) {
		%ENV = (%ENV, %$env);
		delete $ENV{STREAMLAB_CRASH} unless defined $env->{STREAMLAB_CRASH};
		open(STDIN, '<', '/dev/null');
		open(STDOUT, '>', "$base.out");
		open(STDERR, '>', "$base.err");
		exec(bin(), 'run', ckrun(), @args) or POSIX::_exit(127);
	}
	$outs{$pid} = $base;
	return $pid;
}

# Wait for a spawned program: (exit code or undef, signal, stdout, stderr).
sub finish {
	my ($pid) = @_;
	waitpid($pid, 0);
	my $st = $?;
	my $base = delete $outs{$pid};
	my ($out, $err) = (slurp("$base.out") // '', slurp("$base.err") // '');
	unlink("$base.out", "$base.err");
	return (($st & 127) ? undef : $st >> 8, $st & 127, $out, $err);
}

# A hash of every file's relative name and content (and every directory's
# name) under the given directories.
sub tree_hash {
	my (@dirs) = @_;
	my @items;
	for my $d (@dirs) {
		open(my $fh, '-|', 'find', $d, '-mindepth', '1') or die "find: $!";
		while (my $p = <$fh>) {
			chomp $p;
			(my $rel = $p) =~ s{^\Q$d\E}{};
			push @items, -d $p ? "D $rel" : "F $rel " . sha256_hex(slurp($p) // '');
		}
		close $fh;
	}
	return sha256_hex(join("\n", sort @items));
}

# Temp files (".*.tmp") left anywhere under the directories.
sub stray_temps {
	my (@dirs) = @_;
	my @found;
	for my $d (@dirs) {
		open(my $fh, '-|', 'find', $d, '-name', '.*.tmp') or die "find: $!";
		push @found, map { chomp; $_ } <$fh>;
		close $fh;
	}
	return @found;
}

# Batch id => sorted lines of its part files (for batch-by-batch equality).
sub part_lines {
	my ($out) = @_;
	my %per;
	opendir(my $dh, $out) or return {};
	for my $name (readdir $dh) {
		next unless $name =~ /^part-.*-(\d+)\.c000\.json$/;
		push @{$per{$1}}, split /\n/, slurp("$out/$name") // '';
	}
	closedir $dh;
	$per{$_} = join("\n", sort @{$per{$_}}) for keys %per;
	return \%per;
}

# After a faulted run finished: compare its sink with the oracle ($want)
# and, batch by batch, with the uncrashed run's part files ($ref_parts),
# and count the temp files left.  Adds into %$tally (lost, dup, wrong,
# diffs, temps); returns compare_rows' line when rows are wrong, else undef.
sub tally_sink {
	my ($tally, $out, $ck, $want, $ref_parts) = @_;
	my ($rows) = read_sink($out);
	my @r = compare_rows($rows, $want);
	$tally->{lost} += $r[0];
	$tally->{dup} += $r[1];
	$tally->{wrong} += $r[2] + $r[3];
	my $parts = part_lines($out);
	for my $b (keys %$ref_parts) {
		$tally->{diffs}++ unless defined $parts->{$b} && $parts->{$b} eq $ref_parts->{$b};
	}
	for my $b (keys %$parts) { $tally->{diffs}++ unless defined $ref_parts->{$b} }
	$tally->{temps} += scalar(stray_temps($ck, $out));
	return ($r[0] || $r[1] || $r[2] || $r[3]) ? $r[4] : undef;
}

1;
