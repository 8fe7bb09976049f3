#!/usr/bin/perl
# `streamlab lesson N` on a terminal runs the lesson in the workbench: the
# narrative and the code land in the Output pane, pause() waits for a key
# (the input line says so), q stops the lesson and leaves the prompt with
# the lesson's variables; :lesson N runs one from inside the workbench.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../tui/lib";
use Cwd qw(abs_path);
use Test::More;
use Tmux;

plan skip_all => 'tmux not installed' unless Tmux::available();
my $top = abs_path("$FindBin::Bin/../..");
chdir $top or die;
my $t = Tmux->new(cols => 120, rows => 40, args => ['lesson', '1'], dir => $top);

ok($t->wait_for(qr/a key goes on, PgUp\/PgDn scroll the output/, 10), 'pause() asks for a key on the input line');
ok($t->wait_for(qr/true\s+word STRING, count BIGINT NOT NULL/), 'the first step ran, in the Output pane');
$t->send_keys('PPage');
$t->send_keys('PPage');
ok($t->wait_for(qr/Lesson 1: A stream is a table that keeps growing/), 'PgUp scrolls back to the title');
$t->send_keys('Space');
ok($t->wait_for(qr/check t=1 result table: .* ok\]/), 'a key runs the next step; its answer is checked on screen');
ok($t->wait_for(qr/1\* wordcounts \[active\] batch 0/), "the panes follow the lesson's query");
$t->send_text('q');
ok($t->wait_for(qr/lesson 01 stopped at step \d+; its queries and variables stay/), 'q stops the lesson');
$t->type_line('print("rows:", spark.table("wordcounts"):count())');
ok($t->wait_for(qr/rows:\s+2/), "the lesson's queries and globals stay for the learner");
$t->type_line(':lesson 3');
ok($t->wait_for(qr/window\("event_time", "10 minutes"\)/), ':lesson 3 starts lesson 3');
$t->send_text('q');
ok($t->wait_for(qr/lesson 03 stopped at step \d+/), 'and q stops it');
$t->type_line(':quit');
ok($t->wait_for(qr/__EXIT=0/), ':quit exits 0');
done_testing();
