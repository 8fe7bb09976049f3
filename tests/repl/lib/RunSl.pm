# RunSl: run the streamlab program with a given stdin, for the plain-mode
# tests (001-plain.t, 005-input.t): run_sl($in, @args) returns (stdout,
# stderr, exit status).  Core Perl only.
package RunSl;
use strict;
use warnings;
use IPC::Open3;
use File::Temp qw(tempfile);
use Exporter 'import';
our @EXPORT = qw(run_sl);

my $bin = $ENV{STREAMLAB} // './streamlab';

sub run_sl {
	my ($in, @args) = @_;
	my ($ifh, $iname) = tempfile(UNLINK => 1);
	print $ifh $in;
	close $ifh;
	my $efh = tempfile(UNLINK => 1);
	open(my $stdin, '<', $iname) or die;
	my $pid = open3('<&' . fileno($stdin), my $out, '>&' . fileno($efh), $bin, @args);
	my $stdout = do { local $/; <$out> } // '';
	waitpid($pid, 0);
	my $status = $? >> 8;
	seek($efh, 0, 0);
	my $stderr = do { local $/; <$efh> } // '';
	return ($stdout, $stderr, $status);
}

1;
