// frugal's dashboard: polls GET /dashboard every POLL_MS with the API token and draws it.
// Everything from the service is inserted as text (never as HTML).
"use strict";

const POLL_MS = 1500;
const KEY = "frugal-token";
const PALETTE = ["#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#ff9da7",
  "#9c755f", "#bab0ac", "#bcbd22", "#505050"];
const SVG = "http://www.w3.org/2000/svg";
const $ = (id) => document.getElementById(id);
let timer = null;

function token() { return sessionStorage.getItem(KEY); }

function showLogin(message) {
  sessionStorage.removeItem(KEY);
  clearTimeout(timer);
  $("board").hidden = true;
  $("logout").hidden = true;
  $("login").hidden = false;
  $("login-error").textContent = message || "";
  $("status").textContent = "";
}

function showBoard() {
  $("login").hidden = true;
  $("board").hidden = false;
  $("logout").hidden = false;
}

async function poll() {
  clearTimeout(timer);
  const t = token();
  if (!t) { showLogin(); return; }
  try {
    const r = await fetch("/dashboard?window_s=3600&limit=50", {
      headers: { "Authorization": "Bearer " + t }, cache: "no-store" });
    if (r.status === 401) { showLogin("The service refused this token."); return; }
    if (!r.ok) throw new Error("HTTP " + r.status);
    const d = await r.json();
    showBoard();
    draw(d);
    $("status").textContent = "";
  } catch (e) {
    $("status").textContent = "not reachable (" + e.message + "); retrying";
  }
  timer = setTimeout(poll, POLL_MS);
}

const usd = (x) => "$" + (x >= 100 ? x.toFixed(2) : x.toFixed(4));
const time = (iso) => iso ? iso.replace("T", " ").replace(/(\.\d+)?Z$/, "") : "";

function cell(row, text, cls) {
  const td = row.insertCell();
  td.textContent = text == null ? "" : String(text);
  if (cls) td.className = cls;
  return td;
}

function fill(id, rows, columns) {
  const body = $(id).tBodies[0];
  const fresh = document.createElement("tbody");
  for (const r of rows) {
    const tr = fresh.insertRow();
    tr.dataset.job = r.id || r.job || "";
    for (const [f, cls] of columns) {
      const v = f(r);
      cell(tr, v, typeof cls === "function" ? cls(r) : cls);
    }
  }
  body.replaceWith(fresh);
}

function draw(d) {
  const c = d.cost, n = d.counts;
  $("clock").textContent = time(c.time) + " UTC";
  $("spend").textContent = usd(c.spend_usd);
  $("fleet").textContent = usd(c.fleet_price_per_hour) + "/h";
  const bar = $("fleet-bar");
  if (c.budget_per_hour != null) {
    const share = c.fleet_price_per_hour / c.budget_per_hour;
    bar.style.width = Math.min(100, 100 * share).toFixed(1) + "%";
    bar.className = share > 1 + 1e-9 ? "over" : "";
    $("budget").textContent = "of a " + usd(c.budget_per_hour) + "/h budget";
  } else {
    bar.style.width = "0";
    $("budget").textContent = "no budget";
  }
  const decided = n.deadline_met + n.deadline_missed;
  $("deadlines").textContent = decided ? (100 * n.deadline_met / decided).toFixed(1) + " %" : "–";
  $("deadlines-detail").textContent = n.deadline_met + " of " + decided +
    " decided deadline jobs (" + n.deadline_pending + " pending)";
  $("gap").textContent = c.gap_pct == null ? "–" : "+" + c.gap_pct.toFixed(2) + " %";
  $("gap-detail").textContent = "placements " + usd(c.decisions_chosen_usd) +
    ", optimum " + usd(c.decisions_optimal_usd);
  for (const k of ["queued", "running", "completed", "failed", "cancelled", "dropped", "unschedulable"]) {
    $("count-" + k).textContent = n[k];
  }
  $("window").textContent = "(the last " + Math.round((d.now_s - d.since_s) / 60) + " min)";
  timeline(d);
  gapChart(d);
  fill("queued", d.queued, [[(j) => j.id], [(j) => time(j.submitted_at)],
    [(j) => time(j.deadline_at)], [(j) => j.reason]]);
  fill("running", d.running, [[(j) => j.id], [(j) => time(j.started_at)],
    [(j) => time(j.estimated_finish_at)], [(j) => time(j.deadline_at)],
    [(j) => j.placement_cost_usd == null ? "" : usd(j.placement_cost_usd), "num"]]);
  fill("ended", d.ended, [[(j) => j.id], [(j) => j.state, (j) => "state-" + j.state],
    [(j) => time(j.finished_at)],
    [(j) => !j.deadline_at ? "" : (j.state === "completed" && j.finished_at <= j.deadline_at
      ? "met" : "missed"), (j) => j.deadline_at && !(j.state === "completed" &&
      j.finished_at <= j.deadline_at) ? "late" : ""],
    [(j) => j.reason]]);
  const decisions = d.decisions.slice().reverse();
  fill("decisions", decisions, [[(x) => ago(d.now_s - x.at)], [(x) => x.job],
    [(x) => x.executors_per_vm.map(([v, k]) => k + "×VM" + v).join(", ")],
    [(x) => x.powered_on.map((v) => "VM" + v).join(", ")],
    [(x) => usd(x.chosen_usd), "num"], [(x) => usd(x.optimal_usd), "num"]]);
}

function ago(s) {
  if (s < 60) return Math.round(s) + " s ago";
  if (s < 3600) return Math.round(s / 60) + " min ago";
  return (s / 3600).toFixed(1) + " h ago";
}

function el(name, attrs, text) {
  const e = document.createElementNS(SVG, name);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (text != null) e.textContent = text;
  return e;
}

// A time axis from `span` seconds ago (at x0) to now (at x1).
function axis(svg, x0, x1, y, span) {
  svg.appendChild(el("line", { x1: x0, x2: x1, y1: y, y2: y, class: "axis" }));
  for (let i = 0; i <= 4; i++) {
    const t = span * (1 - i / 4);
    svg.appendChild(el("text", { x: x0 + (x1 - x0) * i / 4, y: y + 14, "text-anchor":
      i === 0 ? "start" : i === 4 ? "end" : "middle" },
      t <= 0.5 ? "now" : "−" + ago(t).replace(" ago", "")));
  }
}

// The report's Gantt style: one row per VM, a bar per power-on interval.
function timeline(d) {
  const svg = $("timeline");
  const width = svg.clientWidth || 900, left = 190, right = 12, row = 18;
  const height = d.vms.length * row + 30;
  svg.setAttribute("viewBox", "0 0 " + width + " " + height);
  svg.style.height = height + "px";
  svg.replaceChildren();
  const x = (t) => left + (width - left - right) * (Math.max(t, d.since_s) - d.since_s) /
    (d.now_s - d.since_s);
  d.vms.forEach((v, k) => {
    const y = k * row + 4;
    const label = "VM" + v.id + " " + v.instance_type + " " + v.site + " $" +
      v.price_per_hour.toFixed(3) + "/h";
    svg.appendChild(el("text", { x: 4, y: y + 12 }, label));
    for (const [on, off] of v.on) {
      const a = x(on), b = x(off == null ? d.now_s : off);
      const bar = el("rect", { x: a, y: y + 2, width: Math.max(1, b - a), height: row - 6,
        fill: PALETTE[k % PALETTE.length], "data-vm": v.id });
      bar.appendChild(el("title", {}, label + ": on " + ago(d.now_s - on).replace(" ago", "") +
        " ago" + (off == null ? ", still on" : ", off " + ago(d.now_s - off))));
      svg.appendChild(bar);
    }
  });
  axis(svg, left, width - right, d.vms.length * row + 8, d.now_s - d.since_s);
}

function gapChart(d) {
  const svg = $("gap-chart");
  const width = svg.clientWidth || 900, height = 180, left = 70, right = 12, top = 10;
  const bottom = height - 28;
  svg.setAttribute("viewBox", "0 0 " + width + " " + height);
  svg.style.height = height + "px";
  svg.replaceChildren();
  const pts = d.gap_history;
  if (pts.length === 0) {
    svg.appendChild(el("text", { x: width / 2, y: height / 2, "text-anchor": "middle" },
      "no placement yet"));
    return;
  }
  const t0 = Math.min(pts[0][0], d.since_s), t1 = d.now_s;
  const top$ = Math.max(1e-9, pts[pts.length - 1][1]) * 1.1;
  const x = (t) => left + (width - left - right) * (t - t0) / Math.max(1e-9, t1 - t0);
  const y = (v) => bottom - (bottom - top) * v / top$;
  for (const [i, name, colour] of [[1, "placements", PALETTE[0]], [2, "optimum", PALETTE[2]]]) {
    const path = pts.map((p, k) => (k ? "L" : "M") + x(p[0]).toFixed(1) + " " +
      y(p[i]).toFixed(1)).join(" ") + " L" + x(t1).toFixed(1) + " " +
      y(pts[pts.length - 1][i]).toFixed(1);
    // The optimum dashed on top: where the two coincide both stay visible.
    svg.appendChild(el("path", { d: path, fill: "none", stroke: colour, "stroke-width": 2,
      "stroke-dasharray": i === 2 ? "6 4" : "none" }));
    const label = el("text", { x: left + 8, y: top + 12 * i }, name);
    label.style.fill = colour;
    svg.appendChild(label);
  }
  svg.appendChild(el("text", { x: 4, y: top + 10 }, usd(top$ / 1.1)));
  svg.appendChild(el("text", { x: 4, y: bottom }, "$0"));
  axis(svg, left, width - right, bottom, t1 - t0);
}

document.addEventListener("DOMContentLoaded", () => {
  $("login-form").addEventListener("submit", (e) => {
    e.preventDefault();
    sessionStorage.setItem(KEY, $("token").value.trim());
    $("token").value = "";
    poll();
  });
  $("logout").addEventListener("click", () => showLogin());
  if (token()) poll(); else showLogin();
});
