#!/usr/bin/perl
# Lessons 9-13 on the screen, stepped with a key at 120x40: each lesson's
# queries are in the strip and fill the panes at the named steps
# (checkpoint rows, the Kafka lanes, late rows under a poisoned watermark,
# the late e1 of dropDuplicates, sessions, both watermarks of Spark 3.4+);
# each exercise is asked before its answer; the end says so in one line.
# Robust substrings only (pane layouts are being reworked).
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
*strip = \&LessonScreen::strip;

sub lesson {
	my ($n) = @_;
	return Tmux->new(cols => 120, rows => 40, args => ['lesson', $n], dir => $top);
}

sub ends_cleanly {
	my ($nn, $s) = @_;
	ok($s, "lesson $nn: the end line");
	unlike($s, qr/traceback|^\|error: (?!lesson)/mi, "lesson $nn: no error, no traceback");
}

sub quit {
	my ($t) = @_;
	$t->type_line(':quit');
	my $s = $t->wait_for(qr/__EXIT=0|quit anyway/, 25);
	$t->type_line('y') if $s =~ /quit anyway/;
	ok($t->wait_for(qr/__EXIT=0/, 25), ':quit exits 0');
}

my ($t, $s, $p);

# ---- lesson 9: deleting or reusing a checkpoint ----
$t = lesson(9);
$s = $t->wait_for(qr/expected 1000 rows, got 1000, duplicates 0, missing 0/, 30);
ok($s, 'lesson 09: the copy ran to the end');
$p = pane($s, 'checkpoint');
like($p, qr/^\s*b?$_\b.*200 rows.*commit/m, "checkpoint pane: batch $_, 200 rows, committed") for 0 .. 4;
$s = key_until($t, qr/Exercise: \(a\) Delete the checkpoint/);
unlike($s, qr/duplicates 1000/, 'lesson 09: (a) asked before its answer');
$s = key_until($t, qr/1,000 duplicates: without offsets/);
like($s, qr/expected 1000 rows, got 2000, duplicates 1000, missing 0/, '(a): the oracle line: 1000 duplicates');
like(strip($s), qr/^queries: 1 copy \[stopped\] batch 4 2\* copy \[stopped\] batch 4/, '(a): the second query, in the strip');
like(pane($s, 'checkpoint'), qr/^\s*b?4\b.*200 rows.*commit/m, '(a): its batches on the Checkpoint pane');
ok(key_until($t, qr/Exercise: \(b\) Start a \*different\* query/), 'lesson 09: (b) asked');
$s = key_until($t, qr/Refused, and the checkpoint is left untouched/);
like($s, qr/\[check step \d+ fails as it should: true\s+ok\]/, '(b): refused, the reason checked by the lesson (its fails pattern)');
ok(key_until($t, qr/Exercise: \(c\) The exactly-once json file sink/), 'lesson 09: (c) asked');
ends_cleanly('09', key_until($t, qr/lesson 09 ended; its queries and variables stay/));
quit($t);

# ---- lesson 10: Kafka under faults ----
$t = lesson(10);
$p = pane_until($t, 'kafka partitions', qr/clicks\/2/, 40);
ok($p, 'lesson 10: the kafka view, one lane per partition');
like($p, qr/clicks\/0.*\n.*clicks\/1.*\n.*clicks\/2/, 'three partitions');
$s = $t->wait_for(qr/a key goes on/, 25);
like(strip($s), qr/strict \[active\].*lenient \[active\]/, 'both queries in the strip');
$s = key_until($t, qr/^queries: 1 strict \[active\] batch 4/m);
ok($s, 'lesson 10 step 2: the faults ran, four batches more');
like(pane($s, 'kafka partitions'), qr/clicks\/0\s.*end 50/, 'kafka view: partition 0 read to 50');
like($s, qr/partition 0 leader is now broker 1/, 'the faults are in the feed, on the Output pane');
ok(key_until($t, qr/Exercise: With failOnDataLoss on/), 'lesson 10: the exercise');
$s = key_until($t, qr/lesson 10 ended; its queries and variables stay/);
ends_cleanly('10', $s);
$s = $t->wait_for(qr/data loss: offsets \[80, 100\) of topic 'clicks' partition 0 are gone/, 25);
ok($s, 'lenient: the loss reported, partition and range');
like(strip($s), qr/strict \[failed\]/, 'strict: failed on the data loss');
quit($t);

# ---- lesson 11: bad input, a poisoned watermark ----
$t = lesson(11);
ok($t->wait_for(qr/a key goes on/, 25), 'lesson 11: first pause');
$s = key_until($t, qr/check 2 bad records: parse and missing_event_time/);
ok($s, 'lesson 11 step 2: four files, two bad records');
like($s, qr/^\|\|parse\s+\|/m, 'the bad-records table: parse');
like(strip($s), qr/bad_records \[active\]/, 'the bad-records query in the strip');
$p = pane($s, 'checkpoint');
like($p, qr/^\s*b?2\b.*23:50.*commit/m, 'checkpoint pane: the watermark jumps to (2098-12-31) 23:50');
$p = pane($s, 'late');
like($p, qr/\bb\d+ 12:18:00 /m, 'late pane: 12:18 dropped (the focus stays on the count)');
like($p, qr/\bb\d+ 12:15:00 /m, 'late pane: 12:15 dropped');
like($p, qr/23:50/, 'late pane: the watermark that dropped them');
$s = key_until($t, qr/Exercise: Without a guard, how many valid events are counted/);
unlike($s, qr/counted 6, dropped as late 2/, 'lesson 11: the exercise is asked before its answer');
$s = key_until($t, qr/check one watermark: 4 counted, 4 dropped/);
ok($s, 'lesson 11: the answer, and the one-watermark run');
like(strip($s), qr/bad_records \[stopped\]/, 'the first run stopped');
like(pane($s, 'late'), qr/\bb\d+ 12:08:00 /m, 'one watermark (the panes follow the new run): 12:08 dropped too');
like(pane($s, 'late'), qr/\bb\d+ 12:12:00 /m, 'and 12:12');
ok(key_until($t, qr/Exercise: With that filter/), 'lesson 11: exercise 2');
$s = key_until($t, qr/lesson 11 ended; its queries and variables stay/);
ends_cleanly('11', $s);
quit($t);

# ---- lesson 12: dropDuplicates, session windows ----
$t = lesson(12);
$s = $t->wait_for(qr/check state keeps only keys newer than the watermark \(12:10\): 1\s+ok/, 30);
ok($s, 'lesson 12: dropDuplicates ran');
like(strip($s), qr/unique_clicks \[active\] batch 7/, 'unique_clicks in the strip');
$p = pane($s, 'late');
like($p, qr/\bb\d+ 12:00:00 /m, 'late pane: the resent e1 (12:00) dropped as late');
like($p, qr/e1/, 'late pane: its id');
like(pane($s, 'checkpoint'), qr/^\s*b?7\b.*commit/m, 'checkpoint pane: batch 7 committed');
$s = key_until($t, qr/Without the watermark the state would hold every id ever seen/);
$s = key_until($t, qr/a 12:00-12:09 x3, b 12:01-12:06 x1, b 12:10-12:15 x1/);
ok($s, 'lesson 12: the sessions');
like(strip($s), qr/sessions \[active\]/, 'sessions in the strip, focused');
like(pane($s, 'windows'), qr/^\s*12:00:00-12:09:00\s+a\s+\[3\]\s+UPDATED/m,
     'windows pane: a\'s session as a window, its key the group column');
like(pane($s, 'windows'), qr/^\s*12:10:00-12:15:00\s+b\s/m, 'windows pane: b\'s second session');
like(pane($s, 'checkpoint'), qr/^\s*b?1\b.*3 rows.*commit/m, 'checkpoint pane: batch 1 wrote 3 session rows');
$s = key_until($t, qr/Exercise: b has two sessions/);
unlike($s, qr/b 12:01-12:15/, 'lesson 12: asked before its answer');
ends_cleanly('12', key_until($t, qr/lesson 12 ended; its queries and variables stay/));
quit($t);

# ---- lesson 13: two watermarks ----
$t = lesson(13);
$s = $t->wait_for(qr/the 12:20 batch ran with watermark 12:04; max event time now 12:21/, 30);
ok($s, 'lesson 13: the two-watermark query stopped after 12:20');
like(strip($s), qr/update, one watermark \[stopped\].*update, two watermarks \[active\]/,
     'both runs in the strip, the two-watermark one active');
$p = pane($s, 'watermark');
like($p, qr/12:11/, 'watermark pane: the eviction watermark 12:11');
like($p, qr/\bL\b.*\bW\b|late cutoff/, 'watermark pane: a second mark, the late cutoff');
{
	like($p, qr/12:04/, 'watermark pane: the late cutoff 12:04');
}
like($s, qr/\+-- windows.*12:04/, 'the windows pane: the batch ran with 12:04');
$s = key_until($t, qr/12:25, two watermarks: 11:55-12:05 donkey 1, 12:00-12:10 donkey 1/);
ok($s, 'lesson 13: 12:25, the donkey counted with two watermarks');
like(pane($s, 'windows'), qr/donkey/, 'windows pane: the donkey\'s windows');
like(pane($s, 'late'), qr/no row dropped|no data/, 'late pane: nothing dropped');
$s = key_until($t, qr/Exercise: Why does the donkey/);
$s = key_until($t, qr/the rows are written, and then both\s*\|?\s*\n?.*windows are evicted by 12:11|windows are evicted by 12:11/);
ok($s, 'lesson 13: the answer');
ok(key_until($t, qr/Exercise: In append mode/), 'lesson 13: exercise 2');
$s = key_until($t, qr/lesson 13 ended; its queries and variables stay/);
ends_cleanly('13', $s);
quit($t);

done_testing();
