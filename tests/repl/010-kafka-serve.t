#!/usr/bin/perl
# `streamlab kafka --topic events:3` serves the embedded cluster to other
# processes: kcat produces into it, a second streamlab reads it as a real
# broker list (kafka.bootstrap.servers), Ctrl-C (SIGINT) stops it.
use strict;
use warnings;
use Test::More;
use IPC::Open3;
use File::Temp qw(tempdir);
use POSIX qw(WNOHANG);

my $bin = $ENV{STREAMLAB} // './streamlab';
my $dir = tempdir(CLEANUP => 1);
plan skip_all => 'kcat not installed' unless grep { -x "$_/kcat" } split(/:/, $ENV{PATH});

my $pid = open3(my $in, my $out, undef, $bin, 'kafka', '--topic', 'events:3');
my $line = '';
eval {
	local $SIG{ALRM} = sub { die "timeout\n" };
	alarm 20;
	$line = <$out>;
	alarm 0;
};
like($line // '', qr/^bootstrap\.servers=127\.0\.0\.1:\d+(,127\.0\.0\.1:\d+){2}$/, 'prints the broker list');
chomp(my $bs = $line // '');
$bs =~ s/^bootstrap\.servers=//;

open(my $k, '|-', 'timeout', '30', 'kcat', '-P', '-b', $bs, '-t', 'events', '-K:') or die "kcat: $!";
print $k "u$_:{\"id\":$_}\n" for 1 .. 30;
close $k;
is($? >> 8, 0, 'kcat -P produced 30 records');

open(my $fh, '>', "$dir/read.lua") or die;
print $fh <<'LUA';
local q = spark.readStream:format("kafka")
  :option("kafka.bootstrap.servers", arg[1])
  :option("subscribe", "events"):option("startingOffsets", "earliest"):load()
  :selectExpr("CAST(key AS STRING) AS k", "CAST(value AS STRING) AS v")
  .writeStream:format("memory"):queryName("ev"):start()
q:processAllAvailable()
print("rows=" .. spark.table("ev"):count())
local parts = 0
for _, p in ipairs(kafka.bootstrap(arg[1]) and kafka.offsets("events") or {}) do parts = parts + 1 end
print("partitions=" .. parts)
q:stop()
LUA
close $fh;
my $res = `timeout 60 $bin run $dir/read.lua '$bs' 2>&1`;
like($res, qr/^rows=30$/m, 'a second streamlab read all 30 records');
like($res, qr/^partitions=3$/m, 'kafka.offsets through kafka.bootstrap(servers)');

kill 'INT', $pid;
my $waited = 0;
while (waitpid($pid, WNOHANG) == 0 && $waited < 100) { select(undef, undef, undef, 0.1); $waited++ }
ok($waited < 100, 'Ctrl-C stops it');
is($? >> 8, 0, 'exit status 0');
done_testing();
