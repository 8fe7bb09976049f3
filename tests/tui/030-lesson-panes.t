#!/usr/bin/perl
# Lessons 2-7 drive the same screen as the learner's own queries: stepped
# with a key in the workbench at 120x40, each lesson's query is in the
# strip and fills the panes at the named steps (windows rows, watermark,
# late rows, checkpoint rows, the scatter and state views); an exercise is
# asked before its answer; the end of a lesson and q say so in one line,
# with no error, and the lesson's variables stay.
#
# Pane layouts are being reworked: the checks look for robust substrings
# (a word, a time, a batch id, "commit") inside the right box, not for
# columns.
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
*strip = \&LessonScreen::strip;

sub lesson {
	my ($n) = @_;
	return Tmux->new(cols => 120, rows => 40, args => ['lesson', $n], dir => $top);
}

# The end of a lesson: one line, no error, the prompt back.
sub ends_cleanly {
	my ($t, $nn, $s) = @_;
	ok($s, "lesson $nn: the end line");
	unlike($s, qr/traceback|^\|error:/mi, "lesson $nn: no error, no traceback");
}

sub quit {
	my ($t) = @_;
	$t->type_line(':quit');
	my $s = $t->wait_for(qr/__EXIT=0|quit anyway/, 25);
	$t->type_line('y') if $s =~ /quit anyway/;
	ok($t->wait_for(qr/__EXIT=0/, 25), ':quit exits 0');
}

my ($t, $s, $p);

# ---- lesson 2: the scatter of event time vs processing time ----
$t = lesson(2);
ok($t->wait_for(qr/a key goes on/, 25), 'lesson 02: first pause');
$s = key_until($t, qr/check ten rows read, in four batches: \{10, 3\}\s+ok/);
ok($s, 'lesson 02 step 2: the query ran four batches');
like(strip($s), qr/\[active\] batch 3/, 'lesson 02: its query is in the strip');
$p = pane($s, 'event time vs processing time');
like($p, qr/\bo\b/, 'scatter: on-time marks');
like($p, qr/\+/, 'scatter: late-but-counted marks (out-of-order events)');
like($p, qr/b0.*b3/, 'scatter: the four batches on the axis');
$s = key_until($t, qr/Exercise: How many events have an event time below/);
unlike($s, qr/out of order: /, 'lesson 02: the exercise is asked before its answer');
ends_cleanly($t, '02', key_until($t, qr/lesson 02 ended; its queries and variables stay/));
$t->type_line('print("answer:", #out_of_order, largest_gap)');
ok($t->wait_for(qr/answer:\s+5\s+17/, 25), 'lesson 02: its variables stay');
quit($t);

# ---- lesson 3: tumbling windows, no watermark ----
$t = lesson(3);
ok($t->wait_for(qr/a key goes on/, 25), 'lesson 03: first pause');
$s = key_until($t, qr/trigger 2026-01-01 12:25:00 writes:/);
ok($s, 'lesson 03 step 2: four triggers ran');
$p = pane($s, 'windows');
like($p, qr/12:00\S*\s.*donkey/, 'windows pane: the donkey counted in [12:00, 12:10)');
like($p, qr/12:20\S*\s.*owl/, 'windows pane: [12:20, 12:30) owl');
$p = pane($s, 'checkpoint');
like($p, qr/^\s*b?$_\b.*commit/m, "checkpoint pane: batch $_ committed") for 0 .. 3;
like(pane($s, 'late'), qr/no row dropped|no data/, 'late pane: nothing dropped without a watermark');
$s = key_until($t, qr/Exercise: What are the final counts/);
ok($s, 'lesson 03: the exercise');
ends_cleanly($t, '03', key_until($t, qr/lesson 03 ended; its queries and variables stay/));
quit($t);

# ---- lesson 4: sliding windows, the windows the figure leaves out ----
$t = lesson(4);
$s = $t->wait_for(qr/a key goes on/, 25);
ok($s, 'lesson 04: first pause (12:05)');
like(strip($s), qr/figure_b \[active\] batch 0/, 'lesson 04: figure_b in the strip');
like(pane($s, 'windows'), qr/11:55\S*\s.*dog/, 'windows pane: [11:55, 12:05) dog, the window the figure omits');
$s = key_until($t, qr/12:10-12:20 owl 1/);
$p = pane($s, 'checkpoint');
like($p, qr/^\s*b?2\b.*commit/m, 'checkpoint pane: batch 2 (12:15) committed');
like(pane($s, 'windows'), qr/12:10\S*\s.*owl/, 'windows pane: [12:10, 12:20) owl');
$s = key_until($t, qr/Exercise: How many \(window, word\) rows/);
$s = key_until($t, qr/check rows after 12:15: 10\s+ok/);
ok($s, 'lesson 04: the answer, after a key');
$s = key_until($t, qr/lesson 04 ended; its queries and variables stay/);
ends_cleanly($t, '04', $s);
like(strip($s), qr/figure_c \[stopped\] batch 2/, 'lesson 04: figure_c (late data) in the strip');
like(pane($s, 'windows'), qr/12:00\S*\s.*dog\s.*4/, 'windows pane: the late dog counted in [12:00, 12:10) (dog 4)');
quit($t);

# ---- lesson 5: the watermark, late rows ----
$t = lesson(5);
ok($t->wait_for(qr/a key goes on/, 25), 'lesson 05: first pause');
$s = key_until($t, qr/Exercise: Predict the rows written at each trigger/);
ok($s, 'lesson 05: exercise 1 is asked');
unlike($s, qr/^\|12:25: /m, 'the answer is not printed before the question');
like($s, qr/a key shows the answer/, 'a key reveals the answer');
$s = key_until($t, qr/12:04 donkey DROPPED: \[11:55, 12:05\) \[12:00, 12:10\) end <= watermark 12:11/);
ok($s, 'lesson 05: the answer ran the figure, lateRows names the donkey');
like(strip($s), qr/delay 10m \[active\] batch 3/, 'lesson 05: its query in the strip');
$p = pane($s, 'late');
like($p, qr/\bb\d+ 12:04:00 /m, 'late pane: the 12:04 row dropped');
{
	like($p, qr/donkey/, 'late pane: the dropped row\'s word');
}
like($p, qr/11:55.*12:05|12:00.*12:10/, 'late pane: the windows it missed');
like(pane($s, 'watermark'), qr/12:11/, 'watermark pane: 12:11');
like(pane($s, 'windows'), qr/12:15\S*\s.*owl/, 'windows pane: [12:15, 12:25) owl');
$p = pane($s, 'checkpoint');
like($p, qr/^\s*b?3\b.*12:11.*commit/m, 'checkpoint pane: batch 3 ran with watermark 12:11, committed');
like(LessonScreen::progress($s), qr/late\D*1\b/, 'progress line: 1 row dropped as late');
ok(key_until($t, qr/Exercise: The guide's figure prints 12:05-12:15 cat 2/), 'lesson 05: exercise 2');
ok(key_until($t, qr/was written at 12:15 and did not change at 12:20/), 'its answer');
ok(key_until($t, qr/Exercise: What is the smallest whole-minute delay/), 'lesson 05: exercise 3');
$s = key_until($t, qr/lesson 05 ended; its queries and variables stay/);
ends_cleanly($t, '05', $s);
like(strip($s), qr/delay 12m \[stopped\]/, 'lesson 05: the delay runs are in the strip too');
like(strip($s), qr/4\* delay 17m/, 'at the end the panes follow the newest query again');
$t->type_line('q5 = spark.memoryStream("v INT"):toDF().writeStream:format("memory"):queryName("mine"):start()');
ok($t->wait_for(qr/^ mine\s/m, 25), 'a query of the learner\'s own takes the panes (its progress line)');
quit($t);

# ---- lesson 6: append mode ----
$t = lesson(6);
$s = $t->wait_for(qr/12:20: \(nothing\)/, 25);
ok($s, 'lesson 06: three triggers, nothing written');
like(strip($s), qr/append \[active\] batch 2/, 'lesson 06: its query in the strip');
$p = pane($s, 'checkpoint');
like($p, qr/^\s*b?2\b.*0 rows.*commit/m, 'checkpoint pane: batch 2 wrote 0 rows');
like(pane($s, 'windows'), qr/12:00\S*\s.*dog/, 'windows pane: the open windows');
$s = key_until($t, qr/Three triggers and the sink has nothing/);
unlike($s, qr/^\|12:25: /m, 'lesson 06: asked before the answer');
$s = key_until($t, qr/appears 15 to 20 minutes after its last event/);
ok($s, 'lesson 06: a key runs 12:25 and 12:30, and explains');
$p = pane($s, 'checkpoint');
like($p, qr/^\s*b?\d+\b.*3 rows.*commit/m, 'checkpoint pane: a batch wrote its 3 final rows');
like(pane($s, 'late'), qr/\bb\d+ 12:09:00 /m, 'late pane: the (12:09, cat) dropped');
{
	like(pane($s, 'late'), qr/12:09.*cat/, 'late pane: its word');
}
like(pane($s, 'watermark'), qr/12:16/, 'watermark pane: 12:16');
ok(key_until($t, qr/If no input arrives after 12:20/), 'lesson 06: exercise 2');
ok(key_until($t, qr/no new event ever moves the watermark past their end/), 'its answer');
ok(key_until($t, qr/Exercise: For window \[12:10-12:20\) owl/), 'lesson 06: exercise 3');
ends_cleanly($t, '06', key_until($t, qr/lesson 06 ended; its queries and variables stay/));
quit($t);

# ---- lesson 7: the state view ----
$t = lesson(7);
$s = $t->wait_for(qr/check no watermark: 120 state rows at the end: 120\s+ok/, 30);
ok($s, 'lesson 07: 120 minutes without a watermark');
$p = pane($s, 'state rows per batch');
like($p, qr/\b120\b/, 'state view: 120 rows');
like($p, qr/b119/, 'state view: up to batch 119');
like(strip($s), qr/state, no watermark \[active\] batch 119/, 'lesson 07: its query in the strip');
$s = key_until($t, qr/Exercise: What is the peak number of state rows/);
$s = key_until($t, qr/lesson 07 ended; its queries and variables stay/);
ends_cleanly($t, '07', $s);
like(strip($s), qr/\+3 earlier 4\* state, delay 20 minutes \[stopped\]/, 'the strip keeps the focused last run whole, the earlier ones counted');
like(pane($s, 'state rows per batch'), qr/\b40\b/, 'state view: the last run (delay 20) peaks at 40 rows');
$t->type_line('print("peaks: " .. table.concat(peaks, ","))');
ok($t->wait_for(qr/peaks: 20,30,40/, 25), 'lesson 07: the peaks, in its variables');
quit($t);
# q leaves before the end: one line, no error
$t = lesson(7);
ok($t->wait_for(qr/a key goes on/, 30), 'lesson 07 again');
$s = key_until($t, qr/lesson 07 stopped at step \d+; its queries and variables stay/, 'q');
ok($s, 'q: the lesson says where it stopped');
unlike($s, qr/traceback|error:/i, 'q: no error, no traceback');
$t->type_line('print("rows at 120:", unbounded[120])');
ok($t->wait_for(qr/rows at 120:\s+120/, 25), 'q: the variables stay');
quit($t);

done_testing();
