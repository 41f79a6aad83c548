-- wrk script: POST /jobs as fast as the connections allow, each job with a
-- fresh id ("w<thread>-<n>"), spread over the saas policy's leaf accounts;
-- counts the submissions the server acknowledged (201) so the load test can
-- check every one of them is in the database afterwards.
local threads = {}
local accounts = {"product", "platform", "exploration/ana", "exploration/ben"}

function setup(thread)
  thread:set("prefix", "w" .. (#threads + 1) .. "-" .. os.getenv("ALLOT_LOAD_RUN"))
  table.insert(threads, thread)
end

function init(args)
  counter = 0
  created = 0
  refused = 0
  token = os.getenv("ALLOT_TOKEN")
end

function request()
  counter = counter + 1
  local body = string.format('{"id":"%s-%d","account":"%s","class":"train","gpus_per_node":1,"expected_runtime":"1h"}',
                             prefix, counter, accounts[counter % #accounts + 1])
  return wrk.format("POST", "/jobs", {["Authorization"] = "Bearer " .. token, ["Content-Type"] = "application/json"}, body)
end

function response(status, headers, body)
  if status == 201 then created = created + 1 else refused = refused + 1 end
end

function done(summary, latency, requests)
  local total_created, total_refused = 0, 0
  for _, thread in ipairs(threads) do
    total_created = total_created + thread:get("created")
    total_refused = total_refused + thread:get("refused")
  end
  io.write(string.format("acknowledged %d\nrefused %d\n", total_created, total_refused))
  io.write(string.format("p50_ms %.3f\np99_ms %.3f\n", latency:percentile(50) / 1000, latency:percentile(99) / 1000))
end
