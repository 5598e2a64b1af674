-- wrk's script for bench/lib/wrk.ts: one request, sent again and again, and every response
-- checked against the exact bytes of its answer. The request and the answer are files in the
-- directory given after `--` (method, path, headers as "name: value" lines, body, expected).
-- At the end one line: "wrk-check " and a JSON object (the sample of a wrong response in hex).
local dir, expected
local function slurp(name)
  local f = assert(io.open(dir .. "/" .. name, "rb"))
  local s = f:read("*a")
  f:close()
  return s
end

statuses, wrong, wrong2xx, sample = {}, 0, 0, nil

function init(args)
  dir = args[1]
  wrk.method = slurp("method")
  wrk.path = slurp("path")
  for line in slurp("headers"):gmatch("[^\n]+") do
    local name, value = line:match("^([^:]+):%s*(.*)$")
    wrk.headers[name] = value
  end
  local body = slurp("body")
  if #body > 0 then wrk.body = body end
  expected = slurp("expected")
end

function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
  if body ~= expected then
    wrong = wrong + 1
    if status >= 200 and status < 300 then wrong2xx = wrong2xx + 1 end
    if not sample then sample = status .. " " .. (body or ""):sub(1, 300) end
  end
end

local threads = {}
function setup(thread) table.insert(threads, thread) end

function done(summary, latency, requests)
  local st, bad, bad2xx, first = {}, 0, 0, ""
  for _, t in ipairs(threads) do
    for code, n in pairs(t:get("statuses")) do st[code] = (st[code] or 0) + n end
    bad = bad + t:get("wrong")
    bad2xx = bad2xx + t:get("wrong2xx")
    if first == "" and t:get("sample") then first = t:get("sample") end
  end
  local codes = {}
  for code, n in pairs(st) do table.insert(codes, string.format('"%d":%d', code, n)) end
  local e = summary.errors
  local us = function(p) return string.format("%.1f", latency:percentile(p)) end
  io.write(string.format(
    'wrk-check {"requests":%d,"durationUs":%d,"bytes":%d,"statuses":{%s},"wrong":%d,"wrong2xx":%d,' ..
    '"connectionErrors":%d,"p50Us":%s,"p90Us":%s,"p99Us":%s,"maxUs":%d,"meanUs":%.1f,"sampleHex":"%s"}\n',
    summary.requests, summary.duration, summary.bytes, table.concat(codes, ","), bad, bad2xx,
    e.connect + e.read + e.write + e.timeout, us(50), us(90), us(99), latency.max, latency.mean,
    (first:gsub(".", function(c) return string.format("%02x", c:byte()) end))))
end
