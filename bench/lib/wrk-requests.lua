-- wrk script of the bench (lib/load-wrk.ts): sends the requests prepared in a file per thread, so
-- that each request can be distinct (a new voucher, a new idempotency key), counts the answers by
-- status and prints the figures as one JSON line.
--
-- Arguments after `--`: the directory of the files `requests-<thread>`, and `cycle` (start over when
-- the file is used up) or `once` (stop the thread once every request it sent was answered).
-- A file holds `<byte length>\n<raw HTTP/1.1 request>` one after the other.

local threads = {}

function setup(thread)
  thread:set("index", #threads)
  table.insert(threads, thread)
end

local requests = {}
local nextRequest = 1
local cycle = false
local exhausted = false
local finished = false
-- wrk calls request() of its first thread once before the run, to count pipelined requests in the
-- string; that call must not use up a request nobody will send.
local verifying = false
sent = 0
answered = 0
statuses = {}

function init(args)
  verifying = index == 0
  cycle = args[2] == "cycle"
  local file = assert(io.open(args[1] .. "/requests-" .. index, "rb"))
  local data = file:read("*a")
  file:close()
  local pos = 1
  while pos <= #data do
    local newline = data:find("\n", pos, true)
    local length = tonumber(data:sub(pos, newline - 1))
    requests[#requests + 1] = data:sub(newline + 1, newline + length)
    pos = newline + length + 1
  end
end

-- The bench interrupts wrk once every thread said so; wrk itself would wait out the duration.
local function finish()
  if finished then return end
  finished = true
  io.stderr:write("bench-wrk-thread-done\n")
  io.stderr:flush()
  wrk.thread:stop()
end

function request()
  if verifying then
    verifying = false
    return requests[1]
  end
  if nextRequest > #requests then
    if cycle and #requests > 0 then
      nextRequest = 1
    else
      -- An empty request parks the connection: nothing more is sent, nothing is sent twice.
      exhausted = true
      if answered == sent then finish() end
      return ""
    end
  end
  local raw = requests[nextRequest]
  nextRequest = nextRequest + 1
  sent = sent + 1
  return raw
end

function response(status, headers, body)
  answered = answered + 1
  statuses[status] = (statuses[status] or 0) + 1
  if exhausted and answered == sent then finish() end
end

function done(summary, latency, requests)
  local counts = {}
  for _, thread in ipairs(threads) do
    for code, count in pairs(thread:get("statuses")) do
      counts[code] = (counts[code] or 0) + count
    end
  end
  local codes = {}
  for code, count in pairs(counts) do
    codes[#codes + 1] = string.format('"%d":%d', code, count)
  end
  local errors = summary.errors
  io.write(string.format(
    'BENCH_WRK_RESULT {"durationMicros":%d,"p50Micros":%d,"p99Micros":%d,"statuses":{%s},' ..
      '"errors":{"connect":%d,"read":%d,"write":%d,"timeout":%d}}\n',
    summary.duration, latency:percentile(50), latency:percentile(99), table.concat(codes, ","),
    errors.connect, errors.read, errors.write, errors.timeout))
end
