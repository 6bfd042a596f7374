#include "admin/status_page.hpp"

namespace courier::admin {
namespace {

constexpr std::string_view page = R"html(<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>courier status</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #222; }
h1 { font-size: 1.3em; margin: 0 0 .2em; }
#meta { color: #666; margin-bottom: 1em; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .35em .6em; border-bottom: 1px solid #ddd; }
th { background: #f4f4f4; }
th.num, td.num { text-align: right; font-variant-numeric: tabular-nums; }
.closed { color: #176b2c; } .open { color: #b00020; font-weight: bold; }
.half_open { color: #a15c00; font-weight: bold; }
#error { color: #b00020; }
</style>
</head>
<body>
<h1>courier</h1>
<div id="meta">loading /state ...</div>
<div id="error"></div>
<table>
<thead><tr><th>route</th><th>breaker</th><th>paused</th><th class="num">in flight</th>
<th class="num">lag</th><th class="num">oldest waiting</th><th class="num">delivered</th>
<th class="num">retried</th><th class="num">dead-lettered</th><th>auto-redrive</th></tr></thead>
<tbody id="routes"></tbody>
</table>
<script>
"use strict";
function cell(row, text, cls) {
  const td = document.createElement("td");
  td.textContent = text;
  if (cls) td.className = cls;
  row.appendChild(td);
}
function seconds(ms) {
  if (ms === null) return "-";
  return ms < 1000 ? ms + " ms" : (ms / 1000).toFixed(1) + " s";
}
function autoRedrive(r) {
  const a = r.auto_redrive || {};
  if (!a.enabled) return "off";
  const phase = a.running > 0 ? "running" : a.armed > 0 ? "armed" : a.watching > 0 ? "watching" : "idle";
  const c = r.counters;
  return phase + " (" + c.auto_redrive_events + " events, " + c.auto_redrive_moved + " moved, " +
      c.auto_redrive_failed + " failed)";
}
function draw(state) {
  const body = document.getElementById("routes");
  body.replaceChildren();
  for (const r of state.routes) {
    const source = r.partitions.filter(p => p.assigned && p.topic === r.topic);
    const reasons = new Set();
    if (r.paused) reasons.add(r.paused);
    let lag = 0, known = false, oldest = null;
    for (const p of r.partitions) {
      for (const why of p.paused_reasons) reasons.add(why);
    }
    for (const p of source) {
      if (typeof p.lag === "number") { lag += p.lag; known = true; }
      if (typeof p.oldest_undelivered_age_ms === "number") {
        oldest = Math.max(oldest === null ? 0 : oldest, p.oldest_undelivered_age_ms);
      }
    }
    const row = document.createElement("tr");
    row.dataset.route = r.name;
    cell(row, r.name);
    cell(row, r.breaker.state.replace("_", "-"), r.breaker.state);
    cell(row, reasons.size ? Array.from(reasons).join(", ") : "-");
    cell(row, String(r.in_flight), "num");
    cell(row, known ? String(lag) : "-", "num");
    cell(row, seconds(oldest), "num");
    cell(row, String(r.counters.delivered), "num");
    cell(row, String(r.counters.retried), "num");
    const classes = Object.entries(r.dead_lettered_by_class || {})
        .map(([name, n]) => name + " " + n).join(", ");
    cell(row, String(r.counters.dead_lettered) + (classes ? " (" + classes + ")" : ""), "num");
    cell(row, autoRedrive(r));
    body.appendChild(row);
  }
  document.getElementById("meta").textContent =
      "version " + state.version + ", " + state.routes.length + " route(s), read " +
      new Date().toLocaleTimeString();
  document.getElementById("error").textContent = "";
}
function refresh() {
  fetch("/state", {cache: "no-store"})
      .then(r => { if (!r.ok) throw new Error("/state answered " + r.status); return r.json(); })
      .then(draw)
      .catch(e => { document.getElementById("error").textContent = String(e.message || e); });
}
refresh();
setInterval(refresh, 2000);
</script>
</body>
</html>
)html";

}  // namespace

std::string_view status_page() { return page; }

}  // namespace courier::admin
