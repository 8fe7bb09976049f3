#!/usr/bin/perl
# Keys of the workbench: evaluation in the Output pane, continuation,
# history (and its file), Tab completion (withW -> withWatermark), Ctrl-C
# on a running Lua loop and on a half-typed line (never exits), the panes
# updating while Lua runs, resize to 80x24 redrawing, PgUp/PgDn
# scrollback, :quit asking while queries run, and exit status 0.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Test::More;
use Time::HiRes qw(sleep);
use Tmux;

plan skip_all => 'tmux not installed' unless Tmux::available();
my $t = Tmux->new(cols => 120, rows => 40);
$t->wait_for(qr/late \/ bad records/);

$t->type_line('1+1');
ok($t->wait_for(qr/^\|> 1\+1\s*\|\n\|2\s+\|$/m), '1+1 -> 2 in the output pane');

$t->type_line('function sq(x)');
ok($t->wait_for(qr/^>> ?$/m), 'continuation prompt >>');
$t->type_line('return x * x');
$t->type_line('end');
$t->type_line('sq(12)');
ok($t->wait_for(qr/^\|>> end\s+\|\n\|> sq\(12\)\s+\|\n\|144\s+\|$/m), 'multi-line function defined and called');
$t->send_keys('Up');
ok($t->wait_for(qr/^> sq\(12\)$/m), 'Up recalls the last entry');
$t->send_keys('C-u');

$t->type_line('df = spark.createDataFrame({{1, "a"}}, "id INT, name STRING")');
$t->send_text('df:withW');
$t->send_keys('Tab');
ok($t->wait_for(qr/^> df:withWatermark$/m), 'Tab completes df:withW to df:withWatermark');
$t->send_keys('C-u');
$t->send_text('spark.crea');
$t->send_keys('Tab');
ok($t->wait_for(qr/^> spark\.createDataFrame$/m), 'Tab completes spark.crea');
$t->send_keys('C-u');

# Ctrl-C while Lua runs: back to the prompt, the state survives.
$t->type_line('n = 0');
$t->type_line('ms = spark.memoryStream("v INT")');
$t->type_line('q = ms:toDF().writeStream:format("memory"):queryName("busy"):start()');
$t->wait_for(qr/^queries: 1\* busy/m);
$t->type_line('while true do n = n + 1 end');
ok($t->wait_for(qr/\(running: Ctrl-C stops it\)/), 'the input line says Lua is running');
$t->run('resize-window', '-t', 't', '-x', 110, '-y', 40);
ok($t->wait_for(qr/^\+-- output -{98}\+$/m), 'the panes are redrawn (resized) while Lua runs');
$t->run('resize-window', '-t', 't', '-x', 120, '-y', 40);
$t->send_keys('C-c');
ok($t->wait_for(qr/interrupted!/), 'Ctrl-C interrupts the running loop');
ok($t->wait_for(qr/^> ?$/m), 'the prompt comes back');
$t->type_line('n > 0');
ok($t->wait_for(qr/^\|true\s+\|$/m), 'the session is alive and kept its state');

$t->send_text('x = 1 +');
# Wait until the program has read the text: Ctrl-C makes the terminal
# flush its input queue (ISIG without NOFLSH), so text still unread when
# the ^C arrives is gone before the program sees it (the flake under load).
ok($t->wait_for(qr/^> x = 1 \+$/m), 'the half-typed line is on the input line');
$t->send_keys('C-c');
ok($t->wait_for(qr/^\|> x = 1 \+\^C\s+\|$/m), 'Ctrl-C on a half-typed line clears it');
ok($t->wait_for(qr/^> ?$/m), 'and leaves an empty prompt');

# Scrollback.
$t->type_line('for i = 1, 60 do print("line " .. i) end');
ok($t->wait_for(qr/^ output: lines 1-\d+ of 61 .*\n> for i = 1, 60/m), 'a result taller than the output pane opens the pager at its start');
$t->send_keys('q');
ok($t->wait_for(qr/^\|line 60\s+\|$/m), 'q leaves it: the output pane ends with line 60');
$t->send_keys('PPage');
my $s = $t->wait_for(qr/lines up: PgDn goes back/);
ok($s, 'PgUp scrolls the output back');
unlike($s, qr/^\|line 60\s+\|$/m, 'line 60 scrolled out of view');
$t->send_keys('PPage');
ok($t->wait_for(qr/^\|line 40\s+\|$/m), 'a second PgUp shows older lines');
$t->send_keys('NPage', 'NPage');
ok($t->wait_for(qr/^\|line 60\s+\|$/m), 'PgDn comes back to the end');

# Resize to 80x24: a full redraw from the model.
$t->resize(80, 24);
$s = $t->wait_for(qr/^\+-- output -{68}\+$/m);
ok($s, 'resized to 80x24: the output pane is redrawn at 80 columns');
like($s, qr/-- watermark \(event time\) --.*-- windows --/, 'Watermark and Windows panes still there');
like($s, qr/-- checkpoint --.*-- late \/ bad records/, 'Checkpoint and Late panes still there');
is(scalar(grep { length($_) > 80 } split /\n/, $s), 0, 'nothing wider than 80 columns');
like($s, qr/^\|line 60\s+\|$/m, 'the scrollback survived the resize');
$t->type_line('2+3');
ok($t->wait_for(qr/^\|5\s+\|$/m), 'still evaluating after the resize');

# :quit asks while a query runs; n keeps going; y quits with 0.
$t->type_line(':quit');
ok($t->wait_for(qr/^queries are running: quit anyway\? \(y\/n\)/m), ':quit asks while queries run');
$t->type_line('n');
ok($t->wait_for(qr/\(still here\)/), 'n cancels');
$t->type_line('q:stop()');
$t->type_line(':quit');
ok($t->wait_for(qr/__EXIT=0/), ':quit with no query running exits 0 without asking');

my $hist = do { local (@ARGV, $/) = ($t->home . "/.streamlab_history"); <> } // '';
like($hist, qr/function sq\(x\)\nreturn x \* x\nend/, 'history file keeps the multi-line chunk whole');
done_testing();
