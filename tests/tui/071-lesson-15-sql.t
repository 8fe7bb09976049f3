#!/usr/bin/perl
# Lesson 15 on the screen (issue 19 item 6): the windowed count written
# with the DataFrame API (counts_api) and in SQL over a temp view
# (counts_sql) runs side by side on the same arrivals, and the panes say
# the same for both: the Windows pane's rows and the Checkpoint pane's
# batches, read from the screen once with each query focused, are equal
# line for line (only the strip's focus mark differs).
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

my $t = Tmux->new(cols => 120, rows => 40, args => ['lesson', '15'], dir => $top);
ok($t->wait_for(qr/stamped = events:toDF\(\):withWatermark/, 25), 'lesson 15 opens: the stream and its watermark');
ok(LessonScreen::key_until($t, qr/check both are streaming DataFrames: \{true, true\}  ok\]/), 'the SQL step: a streaming DataFrame too');
ok(LessonScreen::key_until($t, qr/The panes show counts_api/), 'both queries started and ran their batches');
my $api = $t->settled(qr/The panes show counts_api/);
like(LessonScreen::strip($api), qr/^queries: 1\* counts_api \[active\] batch 2 2 counts_sql \[active\] batch 2/,
     'both queries in the strip, counts_api focused');
ok(LessonScreen::key_until($t, qr/Now the panes show counts_sql/), 'the next step focuses the SQL query');
my $sql = $t->settled(qr/Now the panes show counts_sql/);
like(LessonScreen::strip($sql), qr/^queries: 1 counts_api \[active\] batch 2 2\* counts_sql \[active\] batch 2/,
     'then counts_sql focused');
my ($wa, $ws) = (LessonScreen::pane($api, 'windows'), LessonScreen::pane($sql, 'windows'));
like($wa, qr/12:00:00-12:10:00 dog \[2\]\s+UPDATED/, "counts_api's windows: dog 2 in [12:00, 12:10)");
like($wa, qr/12:20:00-12:30:00 owl \[1\]/, "counts_api's windows: owl 1 in [12:20, 12:30)");
is($ws, $wa, 'the Windows pane is the same for the SQL query, row for row');
my ($ca, $cs) = (LessonScreen::pane($api, 'checkpoint'), LessonScreen::pane($sql, 'checkpoint'));
like($ca, qr/^2 mem 1->2 wm 12:04:00 v3\s+4 rows\s+commit/m, "counts_api's batch 2: 4 rows, committed");
is($cs, $ca, 'the Checkpoint pane is the same for the SQL query, batch for batch');
ok(LessonScreen::key_until($t, qr/Exercise: Do the two queries agree/), 'the exercise is asked');
my $s = LessonScreen::key_until($t, qr/== end of lesson 15 \(5 checks, 0 mismatches\) ==/);
ok($s, 'its answer, and the end: every check agrees');
unlike($s, qr/traceback|^\|error:/m, 'no error');
like($s, qr/^\|lesson 15 ended; its queries and variables stay: try :sql/m, 'the end line suggests the SQL mode');
$t->type_line(':quit');
$s = $t->wait_for(qr/__EXIT=0|quit anyway/, 25);
$t->type_line('y') if $s =~ /quit anyway/;
ok($t->wait_for(qr/__EXIT=0/, 25), ':quit exits 0');
done_testing();
