# DuckTest: what the DuckDB reader tests (040, 041, 042) share.  DuckDB is
# npm's @duckdb/node-api under $BUILD/node_modules (`make duckdb`, part of
# `make test`); without node, or without the package, a test prints a TAP
# skip that says why.  The checks themselves are node scripts in this
# directory (duckdb-*.js, on lib/duckdb-tap.js) that print the TAP.  Core
# Perl only.
package DuckTest;
use strict;
use warnings;
use File::Temp qw(tempdir);
use FindBin;
use Exporter 'import';
our @EXPORT = qw(duckdb_api duckdb_run);

my $top = "$FindBin::Bin/../..";

# ($api, $build): the package's directory and the build directory, or the
# TAP skip printed and exit 0.
sub duckdb_api {
	my $build = $ENV{BUILD} || "build";
	$build = "$top/$build" unless $build =~ m{^/};
	my $api = "$build/node_modules/\@duckdb/node-api";
	if (system("command -v node >/dev/null 2>&1") != 0) {
		print "1..0 # SKIP node not found\n";
		exit 0;
	}
	if (!-f "$api/package.json") {
		print "1..0 # SKIP \@duckdb/node-api not installed (make duckdb)\n";
		exit 0;
	}
	return ($api, $build);
}

# duckdb_run($name, $lua, $js): `streamlab run lib/$lua DIR` in a fresh
# temporary DIR, then `node lib/$js API DIR`, which prints the TAP; exits
# with its result.
sub duckdb_run {
	my ($name, $lua, $js) = @_;
	my ($api) = duckdb_api();
	my $bin = $ENV{STREAMLAB} // "$top/streamlab";
	my $dir = tempdir("$name-XXXXXX", TMPDIR => 1, CLEANUP => 1);
	if (system($bin, "run", "$FindBin::Bin/lib/$lua", $dir) != 0) {
		print "1..1\nnot ok 1 - streamlab run $lua $dir\n";
		exit 1;
	}
	my $rc = system("node", "$FindBin::Bin/lib/$js", $api, $dir);
	exit($rc == 0 ? 0 : 1);
}

1;
