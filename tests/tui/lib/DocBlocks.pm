# DocBlocks: the ```lua blocks of a Markdown file with the output the text
# shows after each, and the check of a transcript against it, for the tests
# that type or paste TUTORIAL.md into the workbench (tests/tui/010, 011).
#
#   my @b = DocBlocks::read("TUTORIAL.md");
#   # $b[i] = { line => 31, code => "...\n", fails => 0, chapter => 1,
#   #           shown => [ [lines of one paragraph], ... ] }
#   my @why = DocBlocks::check($b, $text);   # () when $text agrees
#
# The shown output is the first indented (4 spaces) text after a block and
# before the next one.  Each of its paragraphs must appear in the block's
# transcript, in order, each contiguously, spaces and tabs and line breaks
# compared as one blank (the text wraps long error messages; the REPL may
# print more, e.g. the value of `f:close()`).  Input names ("[12]:3: ")
# are not part of the comparison: the text cannot know the input number.
# A block marked ```lua fails must print "error:", any other must not.
package DocBlocks;
use strict;
use warnings;
use Time::HiRes ();

sub read {
	my ($path) = @_;
	open(my $fh, '<', $path) or die "$path: $!";
	my (@blocks, $cur, $in, $shown_for, $para);
	my ($n, $chapter) = (0, 0);
	while (my $l = <$fh>) {
		$n++;
		$chapter = $1 if !$in && $l =~ /^## Chapter (\d+)/;
		if (!$in && $l =~ /^```lua(\s+fails)?\s*$/) {
			$cur = { line => $n, code => '', fails => defined $1 ? 1 : 0,
				 chapter => $chapter, shown => [] };
			push @blocks, $cur;
			($in, $shown_for, $para) = (1, undef, undef);
			next;
		}
		if ($in && $l =~ /^```\s*$/) {
			($in, $shown_for) = (0, $cur);
			next;
		}
		if ($in) {
			$cur->{code} .= $l;
			next;
		}
		next unless $shown_for;
		if ($l =~ /^    (.*)$/) {
			if (!$para) {
				$para = [];
				push @{$shown_for->{shown}}, $para;
			}
			push @$para, $1;
		} elsif ($l =~ /^\s*$/) {
			$para = undef;
		} else {
			# prose after the output ends it; prose before it is skipped
			$shown_for = undef if @{$shown_for->{shown}};
			$para = undef;
		}
	}
	return @blocks;
}

sub flat {
	my ($s) = @_;
	$s =~ s/\[\d+\]:\d+: //g;
	$s =~ s/\s+/ /g;
	$s =~ s/^ | $//g;
	return $s;
}

# Reasons the transcript text of block b disagrees with the document.
sub check {
	my ($b, $text) = @_;
	my @why;
	my $has_error = $text =~ /^error: /m;
	push @why, "it raised an error" if $has_error && !$b->{fails};
	push @why, "it is marked fails but printed no error" if !$has_error && $b->{fails};
	my $hay = flat($text);
	my $pos = 0;
	for my $para (@{$b->{shown}}) {
		my $want = flat(join("\n", @$para));
		my $at = index($hay, $want, $pos);
		if ($at < 0) {
			push @why, "missing the shown output: $want";
			last;
		}
		$pos = $at + length $want;
	}
	return @why;
}

# A line of the shown output to look for on the screen: the last one, or
# for an error (the text wraps it) its first; at most its first 5 words
# (a pane may cut a long line).  Returns a regex, or undef.
sub screen_re {
	my ($b) = @_;
	my @p = @{$b->{shown}};
	return undef unless @p;
	my $l = $p[-1][0] =~ /^error: / ? $p[-1][0] : $p[-1][-1];
	my @w = grep { defined } (split ' ', $l)[0 .. 4];
	return join('\s+(?:\[\d+\]:\d+:\s+)?', map { quotemeta } @w);
}

# Wait until the workbench is back at an empty prompt ("> " or ">> " on
# the bottom line; Lua not running).  Something else on the bottom line
# for a long while, with no Lua running, is taken for a pager opened on a
# tall result (issue 13 item 5; `q` goes back): q is sent, once.
sub wait_prompt {
	my ($t, $timeout) = @_;
	my $slack = $ENV{STREAMLAB_TUI_SLACK} // 4;
	my $start = Time::HiRes::time();
	my $end = $start + $timeout * $slack;
	my $sent_q = 0;
	while (Time::HiRes::time() < $end) {
		my @l = split /\n/, $t->screen;
		my $bottom = $l[-1] // '';
		return 1 if $bottom =~ /^>>? ?$/;
		if (!$sent_q && $bottom !~ /\(running/ &&
		    Time::HiRes::time() - $start > 5 * $slack) {
			Test::More::diag("no prompt (a pager?): sending q");
			$t->send_text('q');
			$sent_q = 1;
		}
		Time::HiRes::sleep(0.03);
	}
	return 0;
}

1;
