-- wrk script: GET /queue?limit=100, walking the first pages of the queue.
local threads = {}

function setup(thread) table.insert(threads, thread) end

function init(args)
  page = 0
  failures = 0
end

function request()
  page = (page + 1) % 10
  return wrk.format("GET", "/queue?limit=100&cursor=" .. (page * 100))
end

function response(status, headers, body)
  if status ~= 200 then failures = failures + 1 end
end

function done(summary, latency, requests)
  local total = 0
  for _, thread in ipairs(threads) do total = total + thread:get("failures") end
  io.write(string.format("failures %d\n", total))
  io.write(string.format("p50_ms %.3f\np99_ms %.3f\n", latency:percentile(50) / 1000, latency:percentile(99) / 1000))
end
