#!/usr/bin/perl
# Lesson 8 on the screen, stepped as a teacher steps it: the query
# `checkpoints` fills the Checkpoint pane batch by batch; the crash armed
# after-sink shows as CRASH on batch 5 (the sink wrote its 3 rows, no
# commit); the restart shows the re-run batch, the sink skipping it and
# the sink check with no duplicate; the lesson's end says so in one line.
# Afterwards the teacher crashes the same query live: more(), :step,
# :crash after-sink, :step, :restart (lessons/README.md), on lesson 8's
# query.  A second session leaves the lesson with q.
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
*key_until = \&LessonScreen::key_until;
*pane_until = \&LessonScreen::pane_until;

my $t = Tmux->new(cols => 120, rows => 40, args => ['lesson', '8'], dir => $top);
my $s = $t->wait_for(qr/13 rows in the sink without a crash/, 25);
ok($s, 'step 1: the run without a crash (13 rows)');
like(LessonScreen::strip($s), qr/reference \[stopped\] batch 10/,
     'the reference query, started and stopped inside one step, is in the strip');
like(pane($s, 'checkpoint'), qr/^\s*10 .*commit/m, 'its batches reached the Checkpoint pane');

# step 2: batches 0..4 of `checkpoints`
$s = key_until($t, qr/check batches 0\.\.4 ran and committed: 4\s+ok/);
ok($s, 'step 2: the query checkpoints ran batches 0..4');
like(LessonScreen::strip($s), qr/\* ?checkpoints \[active\] batch 4/, 'checkpoints is active and focused');
my $ck = pane($s, 'checkpoint');
for my $b (0 .. 4) {
	like($ck, qr/^\s*b?$b\b.*commit/m, "checkpoint pane: batch $b committed");
}
unlike($ck, qr/CRASH/, 'no crash yet');
like(pane($s, 'windows'), qr/owl/, 'the Windows pane holds its windows');
like(pane($s, 'watermark'), qr/12:11/, 'the Watermark pane: 12:11 for the next batch');

# step 3: the armed crash, and the step that dies
$s = key_until($t, qr/check the dead checkpoint: batch 5 in the sink log, not committed/);
ok($s, 'step 3: the crash ran');
$ck = pane($s, 'checkpoint');
like($ck, qr/^\s*b?5\b.*\b3\b.*CRASH/m, 'checkpoint pane: batch 5 wrote 3 rows, then CRASH');
unlike($ck, qr/^\s*b?5\b.*commit/m, 'batch 5 is not committed');
like($ck, qr/crash at 'after-sink' in batch 5/, 'the crash point reached is named');
like(LessonScreen::strip($s), qr/checkpoints \[failed\]/, 'the strip shows the query dead');

# step 4: the exercise is asked, its answer not yet shown
$s = key_until($t, qr/What happens on restart/);
ok($s, 'step 4: the exercise asks');
like($s, qr/a key shows the answer/, 'and waits for a key before the answer');
unlike($s, qr/re-ran batch 5/, 'the answer (the replay) is not shown yet');

# step 5: the answer: restart, batch 5 again
$s = key_until($t, qr/the replay line, and the sink check: no duplicates/);
ok($s, 'step 5: the restart');
$ck = pane($s, 'checkpoint');
like($ck, qr/^\s*b?5\b.*skip.*commit/m, 'batch 5 re-ran: the sink skipped it, then the commit');
like($ck, qr/re-ran batch 5/, 'the replay is named');
like($ck, qr/sink check: expected 3 rows, got 3, duplicates 0/, 'the sink check: no duplicate');
like(LessonScreen::strip($s), qr/checkpoints \[active\]/, 'the same query, active again');

# step 6: the rest of the files, the oracle line
$s = key_until($t, qr/sink check: expected 13 rows, got 13, duplicates 0, missing 0/);
ok($s, 'step 6: the oracle line in the Output pane');
like(pane($s, 'checkpoint'), qr/sink check: expected 13 rows, got 13, duplicates 0/, 'and on the Checkpoint pane');
like(pane($s, 'late'), qr/12:04|donkey/, 'the late pane has the dropped donkey (12:04)');

# to the end: three crash points, the variant, the end line
# (the engine's "recovered from" lines may push the first check lines out
# of the Output pane: the three verdicts are checked by --check, 050)
$s = key_until($t, qr/check crash (after-offsets|after-sink|before-commit): oracle: \{13, 0, 0\}\s+ok/);
ok($s, 'the three crash points: restarted to the same 13 rows');
unlike($s, qr/MISMATCH/, 'no mismatch');
like(pane($s, 'checkpoint'), qr/re-ran batch 5/, 'the panes stay on checkpoints while the other queries run');
$s = key_until($t, qr/Variant: a crash after offsets/);
$s = key_until($t, qr/lesson 08 ended; its queries and variables stay: try more\(\)/);
ok($s, 'the end says so, and what to try');
unlike($s, qr/traceback|error:/i, 'no error, no traceback');
like(LessonScreen::strip($s), qr/\* ?checkpoints \[active\] batch 10/, 'checkpoints still active and focused');

# the teacher: more(), :step, :crash after-sink, :step, :restart
$t->type_line('more()');
ok($t->wait_for(qr/dropped 07\.json: 13:05 owl/, 25), 'more() drops the next file');
$t->type_line(':step');
ok(pane_until($t, 'checkpoint', qr/^\s*b?11\b.*commit/m), ':step: batch 11 (its data) committed');
$t->type_line(':crash after-sink');
ok($t->wait_for(qr/crash armed at after-sink/, 25), ':crash after-sink finds lesson 8\'s query');
$t->type_line(':step');
$ck = pane_until($t, 'checkpoint', qr/^\s*b?12\b.*\b2\b.*CRASH/m);
ok($ck, ':step: batch 12 wrote 2 rows (the windows 13:05 closed), then CRASH');
like($ck, qr/crash at 'after-sink' in batch 12/, 'the crash point is named');
$t->type_line(':restart');
ok($t->wait_for(qr/restarted checkpoints: new run/, 25), ':restart restarts lesson 8\'s query');
$t->type_line(':step');
$ck = pane_until($t, 'checkpoint', qr/^\s*b?12\b.*skip.*commit/m);
ok($ck, 'batch 12 re-ran, the sink skipped it, committed');
like($ck, qr/re-ran batch 12/, 'the replay is named');
like($ck, qr/sink check: expected 15 rows, got 15, duplicates 0/, 'sink check: 15 rows, no duplicate');
$t->type_line('print("sink rows: " .. #sink_rows(dirs))');
ok($t->wait_for(qr/sink rows: 15/, 25), 'the sink directory holds 15 rows: the crashed batch once');
$t->type_line(':quit');
ok($t->wait_for(qr/queries are running: quit anyway/, 25), ':quit asks: the lesson query still runs');
$t->type_line('y');
ok($t->wait_for(qr/__EXIT=0/, 25), 'y: exits 0');

# q leaves the lesson plainly; the query stays for :crash and :restart
my $u = Tmux->new(cols => 120, rows => 40, args => ['lesson', '8'], dir => $top);
ok($u->wait_for(qr/13 rows in the sink without a crash/, 25), 'second session: lesson 8 started');
key_until($u, qr/check batches 0\.\.4 ran and committed/);
key_until($u, qr/check the dead checkpoint/);
$s = key_until($u, qr/lesson 08 stopped at step \d+; its queries and variables stay: try more\(\)/, 'q');
ok($s, 'q: one plain line says where the lesson stopped');
unlike($s, qr/traceback|error:/i, 'no error, no traceback');
$u->type_line(':restart');
ok($u->wait_for(qr/restarted checkpoints: new run/, 25), ':restart works on the crashed lesson query');
ok(pane_until($u, 'checkpoint', qr/re-ran batch 5/), 'and the replay shows on the Checkpoint pane');
$u->type_line(':quit');
$u->wait_for(qr/quit anyway/, 25);
$u->type_line('y');
ok($u->wait_for(qr/__EXIT=0/, 25), ':quit exits 0');
done_testing();
