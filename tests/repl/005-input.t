#!/usr/bin/perl
# The REPL's input rules (README.md "Typing and pasting", :help input), in
# plain mode where stdout is compared exactly; lua/console.c applies them
# in every mode.  Numbered inputs ([N]:L), top-level locals that last,
# continuation lines (':name(' and '.name') applied to the value of the
# input above without running it again, the refusals and the ':' hint;
# `-e` evaluating as the REPL does; awaitTermination on the manual clock.
use strict;
use warnings;
use Test::More;
use IPC::Open3;
use File::Temp qw(tempfile);
use FindBin;
use lib "$FindBin::Bin/lib";
use RunSl;



# Compare the first line of each error only (tracebacks are lua.c's).
sub plain_is {
	my ($in, $want, $name) = @_;
	my ($out, $err, $st) = run_sl($in, '--plain');
	$out =~ s/^stack traceback:\n(?:\t.*\n)*//mg;
	is($out, $want, $name) or diag("stderr: $err");
}

my $df = 'df = spark.createDataFrame({{1, "a", 3}, {2, "b", 5}, {3, "c", 7}}, "id INT, name STRING, qty INT")';

# ---- numbered inputs
plain_is("1+1\nx = nil\nx.y\n",
	 "2\nerror: [3]:1: attempt to index a nil value (global 'x')\n",
	 'inputs are numbered: the error is at [3]:1');
plain_is("\n\n1+\n2\nerror('e')\n",
	 "3\nerror: [2]:1: e\n",
	 'blank lines are no input; a chunk over two lines is one input');
plain_is("function f(t)\n  return t.x + 1\nend\n1\nf({})\n",
	 "1\nerror: [1]:2: attempt to perform arithmetic on a nil value (field 'x')\n  [1]:2 | return t.x + 1\n",
	 'an error in an earlier input shows the line it names');

# ---- top-level locals last for the session
plain_is("local total = 0\nfor _, n in ipairs({1, 2, 3}) do total = total + n end\ntotal\n",
	 "6\n", 'local total = 0 lasts to the next lines');
plain_is("local a, b = 1, 2\nlocal c\nlocal function sq(x) local y = x * x return y end\na + b, c, sq(3), y\n",
	 "3\tnil\t9\tnil\n", 'name lists, no value, local function; locals inside functions stay local');
plain_is("local k <const> = 5\nk\n", "nil\n", 'an attribute keeps the declaration local (as lua.c)');
plain_is("do local z = 1 end\nz\nif true then local w = 2 end\nw\n", "nil\nnil\n",
	 'locals inside do/if blocks stay local');
plain_is("s = 'local q = 1' -- local r = 2\n[[\nlocal t = 3]]\nq, r, t, s\n",
	 "\"local t = 3\"\nnil\tnil\tnil\t\"local q = 1\"\n",
	 'local in strings, comments and long strings is text');

# ---- continuation lines
plain_is("$df\n  :select(\"name\", \"qty\")\n  :where(\"qty > 4\")\ndf:show()\n",
	 "+----+---+\n|name|qty|\n+----+---+\n|   b|  5|\n|   c|  7|\n+----+---+\n",
	 "an assignment continued by ':name(' lines: df = df:select(..):where(..)");
plain_is("$df\ndf:groupBy(\"name\"):count()\n  :orderBy(\"name\")\n  :limit(1)\n  :show()\n",
	 "DataFrame[name: string, count: bigint]\nDataFrame[name: string, count: bigint]\nDataFrame[name: string, count: bigint]\n"
	 . "+----+-----+\n|name|count|\n+----+-----+\n|   a|    1|\n+----+-----+\n",
	 'an expression continued: each line applies to the value shown above it');
plain_is("t = {a = {b = {c = 42}}}\nv = t.a\n  .b\n  .c\nv\n",
	 "42\n", "'.name' lines continue too");
plain_is("local n = 0\nfunction bump() n = n + 1 return {f = function() return n end} end\nr = bump()\n  :f()\nr, n\n",
	 "1\t1\n", 'the input above is not run again (its call happened once)');
plain_is("$df\n  :select(\"name\",\n    \"id\")\ndf.columns\n",
	 "{\"name\", \"id\"}\n", 'a continuation can itself span lines');
{
	my ($out) = run_sl("$df\n  :select(\"name\")\n  :nosuch()\n  :select(\"name\")\ndf.columns\n", '--plain');
	like($out, qr/^error: \[1\]:3: .*nosuch/m, 'an error in a continuation names its line in the chain ([1]:3)');
	like($out, qr/^\{"name"\}$/m, 'and the chain goes on from the value before it');
}

# ---- refusals and the hint
plain_is(":select(\"a\")\n", "error: ':select(\"a\")' continues the input above it, but there is none\n",
	 'nothing to continue at the start');
plain_is("x = 'a'\n:queries\n  :upper()\n",
	 "no active queries\nerror: ':upper()' continues the input above it, but a command ran after it\n",
	 'a command in between: nothing to continue');
plain_is("::top::\nprint('label')\n", "label\n",
	 "'::label::' is Lua, not a command");
plain_is("print(1)\n  :upper()\n", "1\nerror: ':upper()' continues the input above it, but input [1] returned no value\n",
	 'an input that returned nothing');
plain_is("for i = 1, 2 do end\n  :upper()\n",
	 "error: ':upper()' continues the input above it, but input [1] is neither an expression nor an assignment 'name = ...'\n",
	 'a statement that is no assignment');
plain_is("x = nil + 1\n  :upper()\n",
	 "error: [1]:1: attempt to perform arithmetic on a nil value\nerror: ':upper()' continues the input above it, but the input above did not run\n",
	 'an input that failed');
plain_is("a, b = 'x', 'y'\nc = a .. b\n  :upper()\nc\n",
	 "error: ':upper()' continues the input above it, but it would apply to the last part of [2], not to its value: put that in parentheses\n\"xy\"\n",
	 'a line that would bind to the last operand is refused (c = a .. b:upper())');
plain_is("s = 'abc'\n  :upper()\n",
	 "error: ':upper()' continues the input above it, but in Lua a literal needs parentheses before ':' or '.', e.g. (\"abc\"):upper()\n",
	 'a literal cannot take a method without parentheses: said so');
plain_is("s = ('a' .. 'b')\n  :upper()\ns\n", "\"AB\"\n", 'parenthesised, it applies to the whole value');
plain_is(":selct\n", "error: unknown command ':selct' (try :help; a method call continuing the line above is ':selct(...)')\n",
	 "a ':' line that is neither command nor continuation: a one-line hint");
{
	my ($out) = run_sl(":help input\n", '--plain');
	like($out, qr/':name\(' or '\.name' continues the input\n\s+above it/, ':help input states the continuation rule');
	like($out, qr/top-level 'local x' lasts for the session/, ':help input states the local rule');
	($out) = run_sl(":help\n", '--plain');
	like($out, qr/':name\(' or '\.name' continues the one above \(:help input\)/, ':help points at it');
}

# ---- -e as the REPL
{
	my ($out, $err, $st) = run_sl('', '-e', '1+1');
	is("$st $out$err", "0 2\n", "-e '1+1' prints 2");
	($out, $err, $st) = run_sl('', '-e', 'local x = 20', '-e', 'x + 1', '-e', 'print("p")');
	is("$st $out$err", "0 21\np\n", '-e: a top-level local lasts to the next -e; print prints once');
	($out, $err, $st) = run_sl('', '-e', 'x = ');
	is($st, 1, '-e: a syntax error exits 1');
	like($err, qr/^error: \(command line\):1: unexpected symbol near <eof>/, '-e: with its message on stderr');
}

# ---- awaitTermination on the manual clock
plain_is(<<'EOF2', <<'EOF3', 'awaitTermination on the manual clock: a one-line error saying what to do; Spark semantics otherwise');
spark.clock:manual("2026-01-01 12:00:00")
ms = spark.memoryStream("v INT")
q = ms:toDF().writeStream:format("memory"):queryName("m"):start()
q:awaitTermination()
q.isActive
q:awaitTermination(0.1)
q:stop()
q:awaitTermination()
EOF2
error: [4]:1: awaitTermination: on the manual clock this would wait forever (run what is there with q:processAllAvailable(), or move time with spark.clock:advance("10 seconds"))
true
false
true
EOF3

done_testing();
