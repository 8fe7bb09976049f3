#!/usr/bin/perl
# Lesson 14 on the screen (issue 20 item 4): lesson 8's crash and
# restart, then the panes rewound to batch 4, the batch before the crash
# (the banner, the windows it held, the watermark it left, its checkpoint
# row, no batch after it), the state of that batch from the statestore
# source in the Output pane, and the answer: the restart read back
# exactly that state.  The lesson leaves the panes live; Alt-Left rewinds
# them again from there.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Cwd qw(abs_path);
use Test::More;
use Tmux;
use LessonScreen qw();

plan skip_all => 'tmux not installed' unless Tmux::available();
my $top = abs_path("$FindBin::Bin/../..");
chdir $top or die;
*pane = \&LessonScreen::pane;


sub key_until {
	my ($t, $re) = @_;
	$t->send_keys('Space');
	return $t->settled($re, 25);
}

my $t = Tmux->new(cols => 120, rows => 40, args => ['lesson', '14'], dir => $top);
my $s = $t->settled(qr/check the restarted query committed batch 5: 5\s+ok/, 25);
ok($s, 'step 1: lesson 8\'s crash and restart ran, batch 5 committed');
like(pane($s, 'checkpoint'), qr/^\s*5\b.*commit/m, 'the live checkpoint pane has batch 5');

$s = key_until($t, qr/REWOUND to batch 4 of 5/);
ok($s, 'step 2: the panes rewound to batch 4, the banner says so');
my $ck = pane($s, 'checkpoint');
like($ck, qr/^\s*4 file 1->2\s+wm 12:04:00\s+v5\s+0 rows\s+commit/m, 'batch 4\'s checkpoint row: offsets, watermark, state version 5');
unlike($ck, qr/^\s*5 /m, 'and no batch after it');
like(pane($s, 'windows'), qr/12:00:00-12:10:00 dog \[2\]\s+UPDATED/, 'the window [12:00, 12:10) still open, dog counted twice (once in batch 4)');
like(pane($s, 'windows'), qr/12:20:00-12:30:00 owl \[1\]\s+OPEN/, 'the 12:21 owl\'s new window');
like(pane($s, 'checkpoint'), qr/^\s*0 file ->0 /m, 'the rewound timeline starts at batch 0 (the live one lost the crashed run\'s rows)');
like(pane($s, 'watermark'), qr/W (?:watermark )?12:11:00/, 'the watermark batch 4 left for the next batch: 12:11');

$s = key_until($t, qr/check batch 4 held 12 groups: the windows still open: 12\s+ok/);
ok($s, 'step 3: the state of batch 4 read with format("statestore")');
like(pane($s, 'output'), qr/\{\{2026-01-01 12:20:00, 2026-01-01 12:30:00\}, owl\}\|\{1\}/, 'its rows in the Output pane');

$s = key_until($t, qr/Which state was that/);
$s = key_until($t, qr/lesson 14 ended/);
ok($s, 'the lesson ends in one line');
unlike($s, qr/traceback|REWOUND/i, 'no error, and the panes are live again');

$t->send_keys('M-Left');
$s = $t->settled(qr/REWOUND to batch 5 of 5/);
ok($s, 'Alt-Left from the live panes: the last committed batch');
$t->send_keys('M-Left');
ok($t->settled(qr/REWOUND to batch 4 of 5/), 'Alt-Left again: batch 4');
$t->type_line(':live');
$t->type_line(':quit');
$t->settled(qr/quit anyway/, 25);
$t->type_line('y');
ok($t->settled(qr/__EXIT=0/, 25), 'quits');
done_testing();
