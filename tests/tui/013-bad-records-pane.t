#!/usr/bin/perl
# The late / bad records pane counts malformed input (issue 16 finding 11):
# a json file stream with a syntax error, a too-long line and ill-formed
# UTF-8 puts three BAD lines in the pane, with reason, file and line, and
# "bad 3" on the progress line.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use File::Temp qw(tempdir);
use Test::More;
use Tmux;

plan skip_all => 'tmux not installed' unless Tmux::available();
my $dir = tempdir(CLEANUP => 1);
open my $fh, '>', "$dir/a.json" or die "a.json: $!";
print $fh qq({"a":1}\n{"a":2 oops\n{"a":3,"s":"), 'y' x 60, qq("}\n{"a":4,"s":"\xff"}\n);
close $fh;
my $t = Tmux->new(cols => 120, rows => 40);
$t->wait_for(qr/late \/ bad records/);
$t->type_line(qq(q = spark.readStream:schema("a INT, s STRING"):option("maxLineBytes", 40):json("$dir").writeStream:format("memory"):queryName("j"):start()));
$t->type_line(':step');
my $s = $t->wait_for(qr/bad 3/);
ok($s, 'the progress line counts 3 bad records');
like($s, qr/b0 BAD/, 'the pane marks them BAD with their batch');
like($s, qr/a\.json:2: malformed/, 'the pane lists the syntax error with file and line');
like($s, qr/a\.json:3: too_long/, 'the too-long line');
like($s, qr/a\.json:4: utf8/, 'the ill-formed UTF-8 line');
done_testing();
