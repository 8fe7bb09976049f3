#!/usr/bin/perl
# An error inside foreachBatch prints once in the workbench (issue 13,
# item 7): "error: foreachBatch (batch N): <chunk>:<line>: <message>",
# one location (the function's line, no second prefix of the caller's),
# one traceback (the function's frames, then the caller's).  A batch that
# fails in the background (no call to return the error to) is told once
# on the query's own line.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Test::More;
use Tmux;

plan skip_all => 'tmux not installed' unless Tmux::available();
my $t = Tmux->new(cols => 120, rows => 40);
$t->wait_for(qr/late \/ bad records/);

my $chunk = qr/(?:stdin|\[\d+\]):\d+/;
$t->type_line(q{ms = spark.memoryStream("k STRING")});
$t->type_line(q{q = ms:toDF().writeStream:foreachBatch(function(df, id) local x = nil return x .. "a" end):start()});
$t->type_line(q{ms:addData({"a"}) q:processAllAvailable()});
my $s = $t->wait_for(qr/^\|error: foreachBatch \(batch 0\): $chunk: attempt to concatenate a nil value \(local 'x'\)\s*\|$/m, 10);
ok($s, 'one line: error, the batch id, the learner\'s line');
my @msg = $s =~ /attempt to concatenate/g;
my @tb = $s =~ /stack traceback:/g;
is(scalar @msg, 1, 'the message once');
is(scalar @tb, 1, 'one traceback');
unlike($s, qr/$chunk: $chunk:/, 'no second location prefix');
like($s, qr/^\|\s+$chunk: in function <$chunk>\s*\|\n\|\s+\[C\]: in method 'processAllAvailable'/m,
     'the traceback: the function, then the caller');

# in the background: nobody's call gets the error, the query's line tells it
$t->type_line(q{ms2 = spark.memoryStream("k STRING")});
$t->type_line(q{q2 = ms2:toDF().writeStream:queryName("bg"):foreachBatch(function(df, id) error("bad batch " .. id) end):start()});
$t->type_line(q{ms2:addData({"b"})});
$s = $t->wait_for(qr/^\|\[bg\] foreachBatch \(batch 0\): $chunk: bad batch 0\s*\|$/m, 10);
ok($s, 'a background failure is told on the query\'s line');
my @bg = $s =~ /bad batch 0/g;
is(scalar @bg, 1, 'once');

$t->type_line(':quit');
ok($t->wait_for(qr/__EXIT=0/), ':quit exits 0');
done_testing();
