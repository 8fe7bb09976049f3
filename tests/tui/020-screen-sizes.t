#!/usr/bin/perl
# The screen at 120x40, 80x24 and 60x16 (issue 13 items 4-6): with a
# windowed query that drops the late row (12:04, donkey) on the manual
# clock, no pane line cuts the late row's fields or a watermark value;
# below 80x24 only the size message is drawn, typing still works, and
# growing the terminal brings the frame back; :zoom and F6 put one pane
# on the whole screen and Esc brings the panes back.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Test::More;
use Tmux;

plan skip_all => 'tmux not installed' unless Tmux::available();

# The guide's word count with a 10-minute watermark; (12:04, donkey)
# arrives after the watermark passed 12:10 and is dropped.
sub donkey_query {
	my ($t) = @_;
	$t->type_line('spark.clock:manual("2026-01-01 12:00:00")');
	$t->type_line('ms = spark.memoryStream("ts TIMESTAMP, word STRING")');
	$t->type_line('df = ms:toDF():withWatermark("ts", "10 minutes"):groupBy(F.window("ts", "10 minutes"), "word"):count()');
	$t->type_line('q = df.writeStream:outputMode("update"):format("memory"):queryName("words"):start()');
	$t->type_line('ms:addData({{"2026-01-01 12:07:00", "dog"}, {"2026-01-01 12:08:00", "owl"}})');
	$t->type_line('q:processAllAvailable()');
	$t->type_line('ms:addData({{"2026-01-01 12:25:00", "cat"}})');
	$t->type_line('q:processAllAvailable()');
	$t->type_line('ms:addData({{"2026-01-01 12:04:00", "donkey"}})');
	$t->type_line('q:processAllAvailable()');
}

# Every line of the frame: no wider than the terminal; every watermark
# value whole; the late row's field whole.
sub check_uncut {
	my ($s, $cols, $what) = @_;
	my @lines = split /\n/, $s;
	is(scalar(grep { length($_) > $cols } @lines), 0, "$what: no line wider than $cols");
	like($s, qr/word=donkey/, "$what: the late row's field word=donkey is shown whole");
	unlike($s, qr/word=d(?!onkey)/, "$what: and never cut");
	like($s, qr/\bwm 12:15:00\b/, "$what: the late row's watermark is shown whole");
	unlike($s, qr/\bwm (?!\d\d:\d\d:\d\d\b|-)/, "$what: no 'wm' value is cut");
	like($s, qr/\bW (?:watermark )?12:15:00\b/, "$what: the watermark pane shows W whole");
	unlike($s, qr/\bW (?:watermark )?(?!\d\d:\d\d:\d\d\b|-)\d/, "$what: and never cut");
	like($s, qr/missed \[12:00:00,12:10:00\)/, "$what: the window the row missed, whole");
}

for my $size ([120, 40], [80, 24]) {
	my ($cols, $rows) = @$size;
	my $what = "${cols}x$rows";
	my $t = Tmux->new(cols => $cols, rows => $rows);
	ok($t->wait_for(qr/late \/ bad records/, 30), "$what: the frame is drawn");
	donkey_query($t);
	my $s = $t->wait_for(qr/word=donkey(?:.*\n)*.*late dropped 1/, 30);
	ok($s, "$what: the dropped row reached the late pane");
	check_uncut($s, $cols, $what);
	like($s, qr/^\|\d+ mem \d*->\d+\s/m, "$what: checkpoint offsets are readable (mem start->end)");
	my ($panes) = $s =~ /\A(.*?)^ words  /ms;
	unlike($panes // $s, qr/logOffset|\{"/, "$what: no raw JSON in the panes");
	like($s, qr/^\|b\d+[ o\-]*x/m, "$what: the watermark pane marks the dropped row with x");

	# a later batch (and the no-data batch that evicts): the x stays
	$t->type_line('ms:addData({{"2026-01-01 12:40:00", "emu"}})');
	$t->type_line('q:processAllAvailable()');
	$s = $t->wait_for(qr/W (?:watermark )?12:30:00/, 30);
	ok($s, "$what: a later batch moves the watermark to 12:30:00");
	like($s, qr/^\|b\d+[ o\-]*x/m, "$what: the dropped row's x is still on the watermark pane");
	like($s, qr/word=donkey/, "$what: and the late pane still lists it");
	unlike($s, qr/\bwm (?!\d\d:\d\d:\d\d\b|-)/, "$what: no 'wm' value is cut");

	# the late pane zoomed: alone under the strip, the whole width
	$t->type_line(':zoom late');
	$s = $t->wait_for(qr/^\+-- late \/ bad records .*\+$/m, 20);
	ok($s, "$what: :zoom late puts the late pane on the screen");
	my @l = split /\n/, $s;
	is(length($l[1]), $cols, "$what: it spans the terminal's width");
	unlike($s, qr/-- checkpoint --|-- windows/, "$what: the other panes are gone");
	like($s, qr/b\d+ 12:04:00 word=donkey missed \[12:00:00,12:10:00\) wm 12:15:00/,
	     "$what: zoomed, the late row's line holds all of it on one row");
	$t->send_keys('Escape');
	ok($t->wait_for(qr/-- checkpoint --/, 20), "$what: Esc brings all panes back");
	$t->send_keys('F6');
	ok($t->wait_for(qr/^\+-- watermark \(event time\) -+ F6 next pane/m, 20), "$what: F6 zooms the first pane");
	$t->send_keys('F6');
	ok($t->wait_for(qr/^\+-- windows .* F6 next pane/m, 20), "$what: F6 again: the next one");
	$t->type_line(':zoom');
	ok($t->wait_for(qr/-- checkpoint --/, 20), "$what: :zoom alone goes back");
	$t->type_line(':zoom nosuch');
	ok($t->wait_for(qr/error: unknown pane 'nosuch'/, 20), "$what: an unknown pane is named");

	# the pager over a long result
	$t->type_line('local t = {} for i = 1, 10000 do t[i] = {i} end big = spark.createDataFrame(t, "id INT")');
	$t->type_line('big:show(10000)');
	ok($t->wait_for(qr/^ output: lines 1-\d+ of 10005 /m, 30), "$what: show(10000) opens the pager on its first line");
	ok($t->wait_for(qr/\A output: lines 1-\d+ of 10005 [^\n]*\n> big:show\(10000\)\n\+-----\+\n\|   id\|\n\+-----\+\n\|    1\|$/m, 20),
	   "$what: the pager shows the command, the header and row 1");
	$t->send_keys('End');
	$s = $t->wait_for(qr/^\|10000\|\n\+-----\+\n\(END\)/m, 20);
	ok($s, "$what: End reaches row 10,000");
	$t->send_keys('Home');
	ok($t->wait_for(qr/^\|    1\|$/m, 20), "$what: Home goes back to row 1");
	$t->send_keys('NPage');
	ok($t->wait_for(qr/^ output: lines \d+-\d+ of 10005 /m, 20), "$what: PgDn pages");
	unlike($t->screen, qr/^\|    1\|$/m, "$what: row 1 has scrolled off");
	$t->send_keys('/');
	$t->wait_for(qr/^\/$/m, 20);
	$t->send_text('5000');
	$t->send_keys('Enter');
	ok($t->wait_for(qr/\A output: lines \d+-\d+ of 10005 [^\n]*\n\| 5000\|$/m, 20), "$what: / finds row 5000");
	$t->send_keys('q');
	ok($t->wait_for(qr/^\+-- output -+\+$/m, 20), "$what: q goes back to the panes");
	$t->type_line('6*7');
	ok($t->wait_for(qr/^\|42\s+\|$/m, 20), "$what: the prompt takes input again");

	# a long error line wraps in the Output pane (or the pager): whole
	$t->type_line('error(string.rep("w", 130) .. " the end of a long error", 0)');
	$s = $t->wait_for(qr/stack traceback/, 20);
	ok($s, "$what: the error is shown");
	my $joined = join '', map { s/^\|//r =~ s/\|$//r } split /\n/, $s;
	like($joined, qr/error: w{130} the end of a long error/,
	     "$what: a line wider than the pane wraps onto the next rows, whole");
	if ($s =~ /^ output: lines/m) {
		$t->send_keys('q');
	} elsif ($s =~ /^\+-- output -+ F6 next pane/m) {
		$t->send_keys('Escape');
	}
	ok($t->wait_for(qr/^\+-- output -+\+$/m, 20), "$what: back at the panes");

	# :help: taller than the Output pane; the Output pane takes the
	# screen while it fits there (the prompt stays live), else it pages
	$t->type_line(':help');
	$s = $t->wait_for(qr/:zoom \[PANE\]/, 20);
	ok($s, "$what: :help lists :zoom");
	if ($s =~ /^ output: lines/m) {
		pass("$what: :help pages (taller than the screen)");
		$t->send_keys('q');
		ok($t->wait_for(qr/^\+-- output -+\+$/m, 20), "$what: q leaves :help's pager");
	} else {
		like($s, qr/^\+-- output -+ F6 next pane, Esc: all -+\+$/m, "$what: :help gets the whole screen");
		like($s, qr/\|Scripts: streamlab run/, "$what: all of it");
		unlike($s, qr/-- checkpoint --/, "$what: the panes make room");
		$t->type_line('6*6');
		ok($t->wait_for(qr/^\+-- output -+\+$(?:.*\n)*\|36\s+\|$/m, 20), "$what: the next line brings the panes back, and runs");
	}
	# typing while the pager is open goes to the input line
	$t->type_line(':help');
	$t->wait_for(qr/:zoom \[PANE\]/, 20);
	$t->type_line('question = 40 + 2');
	$t->type_line('question');
	ok($t->wait_for(qr/^\|42\s+\|$/m, 20), "$what: a line typed in the pager reaches the prompt whole");
	$t->type_line('q:stop()');
}

# 60x16: only the size message, typing works, growing restores the frame.
{
	my $t = Tmux->new(cols => 60, rows => 16);
	my $s = $t->wait_for(qr/streamlab needs at least 80x24 \(now 60x16\)/, 30);
	ok($s, '60x16: the size message');
	(my $rest = $s) =~ s/streamlab needs at least 80x24 \(now 60x16\)//;
	like($rest, qr/\A\s*\z/, '60x16: nothing else on the screen');
	my ($line) = grep { /streamlab needs/ } split /\n/, $s;
	my $lead = length(($line =~ /^( *)/)[0]);
	ok(abs($lead - int((60 - 43) / 2)) <= 1, '60x16: the message is centred');
	donkey_query($t);
	$t->type_line('answer = 6 * 7');
	sleep 1; # let the lines run while nothing shows (the assertion is below)
	$s = $t->screen;
	(my $rest2 = $s) =~ s/streamlab needs at least 80x24 \(now 60x16\)//;
	like($rest2, qr/\A\s*\z/, '60x16: still only the message while typing');
	$t->resize(120, 40);
	$s = $t->wait_for(qr/-- checkpoint --.*\n(?:.*\n)*.*word=donkey/, 30);
	ok($s, 'grown to 120x40: the frame is back, with the late row');
	check_uncut($s, 120, 'grown to 120x40') if $s;
	$t->type_line('answer');
	ok($t->wait_for(qr/^\|42\s+\|$/m, 20), 'what was typed while small ran');
	$t->resize(79, 30);
	ok($t->wait_for(qr/streamlab needs at least 80x24 \(now 79x30\)/, 20), '79 columns: the message again');
	$t->resize(80, 24);
	ok($t->wait_for(qr/-- checkpoint --/, 20), '80x24: the frame');
	$t->type_line('q:stop()');
}

done_testing();
