#!/usr/bin/perl
# The layering rules of STYLE.md (tests/layers.sh) hold for this tree, and
# the checker itself catches each kind of violation in a made-up tree.
use strict;
use warnings;
use Test::More;
use File::Temp qw(tempdir);
use File::Path qw(make_path);
use FindBin;

my $top = "$FindBin::Bin/../..";
my $script = "$top/tests/layers.sh";

my $out = `sh "$script" "$top" 2>&1`;
is($? >> 8, 0, 'the tree keeps its layers') or diag($out);
is($out, '', 'no violations reported');

my $bad = tempdir(CLEANUP => 1);
make_path("$bad/engine/core", "$bad/engine/exec", "$bad/engine/sources", "$bad/engine/kafka",
          "$bad/engine/misc", "$bad/lua", "$bad/repl");
sub put { my ($f, $s) = @_; open(my $fh, '>', "$bad/$f") or die; print $fh $s; close $fh }
put('engine/core/a.c', "#include <stdio.h>\n#include <lauxlib.h>\n/* time() here is a comment */\n"
    . "long f(void) { return time(0); }\nvoid g(void) { puts(\"x\"); }\n"
    . "void h(sl_buf *b) { sl_buf_printf(b, \"printf(\"); }\n");
put('engine/core/clock.c', "long now(void) { struct timespec t; clock_gettime(0, &t); return t.tv_sec; }\n");
# the layer order: same folder or lower (core < ... < exec), folder named
put('engine/core/b.c', "#include \"core/buf.h\"\n#include \"exec/exec.h\"\n#include \"batch.h\"\n");
put('engine/exec/e.c', "#include \"core/buf.h\"\n#include \"exec/exec.h\"\n#include \"plan/plan.h\"\n");
put('engine/loose.c', "int x;\n");
put('engine/misc/m.c', "int y;\n");
put('engine/sources/s.c', "#include <librdkafka/rdkafka.h>\n");
put('engine/kafka/k.c', "#include <librdkafka/rdkafka.h>\n");
put('lua/l.c', "#include <curses.h>\n");
put('repl/r1.c', "#include <readline/readline.h>\n");
put('repl/r2.c', "#include <readline/history.h>\n");
$out = `sh "$script" "$bad" 2>&1`;
is($? >> 8, 1, 'violations fail the check');
like($out, qr{^layers: engine/core/a\.c:2: engine includes <lauxlib\.h>}m, 'engine including Lua, with file and line');
like($out, qr{^layers: engine/core/a\.c:4: engine calls time\(\)}m, 'engine reading the clock outside clock.c');
like($out, qr{^layers: engine/core/a\.c:5: engine prints \(puts\)}m, 'engine printing');
unlike($out, qr{engine/core/a\.c:[36]:}, 'comments and strings are not code');
unlike($out, qr{^layers: engine/core/clock\.c}m, 'engine/core/clock.c may read the clock');
like($out, qr{^layers: engine/core/b\.c:2: core includes exec/exec\.h, a higher layer}m,
     'an include pointing up a layer, with file and line');
like($out, qr{^layers: engine/core/b\.c:3: engine includes "batch\.h" \(name the folder}m,
     'an engine include that does not name its folder');
unlike($out, qr{^layers: engine/core/b\.c:1:}m, 'an include into the same folder is fine');
unlike($out, qr{^layers: engine/exec/}m, 'includes into the same folder or lower layers are fine');
like($out, qr{^layers: engine/loose\.c:1: engine file outside a subsystem folder}m,
     'every engine file lives in a folder');
like($out, qr{^layers: engine/misc/m\.c:1: engine folder 'misc' is not in the layer table}m,
     'every engine folder has a layer');
like($out, qr{^layers: engine/sources/s\.c:1: engine includes <librdkafka/rdkafka\.h>}m,
     'librdkafka outside engine/kafka/');
unlike($out, qr{^layers: engine/kafka/}m, 'engine/kafka/ may include librdkafka');
like($out, qr{^layers: lua/l\.c:1: lua/ includes <curses\.h>}m, 'lua/ including curses');
like($out, qr{^layers: more than one file includes readline headers: repl/r1\.c repl/r2\.c$}m,
     'one readline file only');

done_testing();
