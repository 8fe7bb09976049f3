#!/usr/bin/perl
# The scrollback keeps a command's whole result, up to its bound (issue 13
# item 5): 120,000 printed lines are all in the pager (Home reaches line
# 1, End line 120,000); 140,000 lines keep the newest 131,072 (the ring's
# size), so memory stays bounded and the pager starts at the oldest kept.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Test::More;
use Tmux;

plan skip_all => 'tmux not installed' unless Tmux::available();
my $t = Tmux->new(cols => 80, rows => 24);
ok($t->wait_for(qr/late \/ bad records/, 30), 'the frame is drawn');

$t->type_line('for i = 1, 120000 do print("line " .. i) end');
my $s = $t->wait_for(qr/\A output: lines 1-\d+ of 120001 [^\n]*\n> for i = 1, 120000[^\n]*\nline 1\n/, 30);
ok($s, 'the pager opens on the command, then line 1 of 120,001');
$t->send_keys('End');
ok($t->wait_for(qr/^line 119999\nline 120000\n\(END\)/m, 20), 'End reaches line 120,000');
$t->send_keys('/');
$t->wait_for(qr/^\/$/m, 20);
$t->send_text('line 60000');
$t->send_keys('Enter');
ok($t->wait_for(qr/\A output: lines 60001-\d+ of 120001 [^\n]*\nline 60000\n/, 20), '/ finds line 60,000 (searching on from the end wraps)');
$t->send_keys('Home');
ok($t->wait_for(qr/\A output: lines 1-\d+ of 120001 /, 20), 'Home goes back to the first line');
$t->send_keys('q');
ok($t->wait_for(qr/^\|line 120000\s+\|$/m, 20), 'q: the Output pane ends with the last line');
$t->send_keys('PPage');
ok($t->wait_for(qr/lines up: PgDn goes back/, 20), 'PgUp scrolls the Output pane back');
$t->send_keys('NPage');
ok($t->wait_for(qr/^\+-- output -+\+$/m, 20), 'PgDn follows the end again');

$t->type_line('for i = 1, 140000 do print("line " .. i) end');
$s = $t->wait_for(qr/\A output: lines 1-\d+ of 131072 [^\n]*\nline 8929\n/, 30);
ok($s, '140,000 lines: the newest 131,072 are kept, the oldest kept first');
$t->send_keys('End');
ok($t->wait_for(qr/^line 140000\n\(END\)/m, 20), 'and the last one');
$t->send_keys('q');
ok($t->wait_for(qr/^\+-- output -+\+$/m, 20), 'q: back at the panes');
$t->type_line('6*7');
ok($t->wait_for(qr/^\|42\s+\|$/m, 20), 'the session goes on');
done_testing();
