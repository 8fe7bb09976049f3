-- UTF-8 in files larger than the chunked reader's 4 KiB counting blocks:
-- the reader skips its UTF-8 pass over a chunk it saw to be all ASCII
-- (fileformat.c nl_find checks the high bits in the loads that count the
-- newlines), so a byte >= 0x80 anywhere must still be seen: inside a
-- counting block, in the tail after the last block, on the first line.
-- Ill-formed bytes read as U+FFFD with a utf8 report (013-bad-records),
-- well-formed multi-byte text stays as it is; an all-ASCII file reads the
-- same as before.
local T = require("tap")

spark.clock:manual("2026-01-01 12:00:00")
local FFFD = "\xef\xbf\xbd"
local N = 20000

local function lines(fmt, special)
  local t = {}
  for i = 1, N do
    local s = special[i] or ("v" .. i)
    t[i] = fmt == "json" and string.format('{"a":%d,"s":"%s"}', i, s) or (i .. "," .. s)
  end
  return table.concat(t, "\n") .. "\n"
end

local function bad(q)
  local out = {}
  for _, e in ipairs(q:badRecords()) do out[#out + 1] = e.reason .. ":" .. e.line end
  table.sort(out)
  return out
end

for _, fmt in ipairs({ "json", "csv" }) do
  local dir = T.tempdir()
  local q = spark.readStream:format(fmt):schema("a INT, s STRING"):load(dir)
    .writeStream:format("memory"):queryName("u" .. fmt):start()
  -- 1: all ASCII
  T.put(dir, "1." .. fmt, lines(fmt, {}), "2026-01-01 11:00:01")
  q:processAllAvailable()
  local rows = spark.table("u" .. fmt):collect()
  T.is({ #rows, rows[1].s, rows[N].s, rows[N].a }, { N, "v1", "v" .. N, N },
    fmt .. ": an all-ASCII file of 20000 lines reads whole")
  T.is(#q:badRecords(), 0, fmt .. ": an all-ASCII file reports nothing")
  -- then one file per place: each byte alone in its file, so that no other
  -- byte of the chunk sends it to the UTF-8 pass anyway
  local cases = {
    { "the first line", 1, "x\xffy", "x" .. FFFD .. "y", true },
    { "inside a counting block", 10000, "a\xfeb", "a" .. FFFD .. "b", true },
    { "the last line (the tail)", N, "z\xc0", "z" .. FFFD, true },
    { "well-formed, inside a block", 5000, "caf\xc3\xa9", "caf\xc3\xa9", false },
  }
  for k, c in ipairs(cases) do
    T.put(dir, (k + 1) .. "." .. fmt, lines(fmt, { [c[2]] = c[3] }),
      string.format("2026-01-01 11:00:%02d", k + 1))
    q:processAllAvailable()
    rows = spark.table("u" .. fmt):collect()
    local at, other
    for i = k * N + 1, (k + 1) * N do
      if rows[i].a == c[2] then at = rows[i].s end
      if rows[i].a == 2 then other = rows[i].s end
    end
    T.is({ #rows, at, other }, { (k + 1) * N, c[4], "v2" },
      fmt .. ", a byte >= 0x80 on " .. c[1] .. ": read as " .. (c[5] and "U+FFFD" or "it is"))
    local want = {}
    for j = 1, k do
      if cases[j][5] then want[#want + 1] = "utf8:" .. cases[j][2] end
    end
    table.sort(want)
    T.is(bad(q), want, fmt .. ", " .. c[1] .. ": the utf8 reports so far")
  end
  q:stop()
end

T.done()
