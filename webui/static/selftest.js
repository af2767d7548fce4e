// Setup -> accuracy self-test: print the sheet, capture it empty, place pieces, measure (the
// server registers the sheet and runs vision.detect); the error per spot is drawn on the sheet.
"use strict";
const $ = (id) => document.getElementById(id);
let SHEET = null;

function links() {
  const q = `board=${encodeURIComponent($("board").value)}`;
  $("pdf").href = `/api/selftest/sheet.pdf?${q}`;
  $("png").href = `/api/selftest/sheet.png?${q}`;
}

async function loadSheet() {
  links();
  SHEET = await TR.api("GET", `/api/selftest/sheet?board=${encodeURIComponent($("board").value)}`).catch(() => null);
  if (!SHEET) return;
  $("piece").textContent = `${SHEET.targets.length} targets for a ${SHEET.piece} (${(SHEET.targets[0].radius * 2).toFixed(0)} mm), markers ${SHEET.markers.map((m) => m.id).join(", ")} of ${SHEET.dictionary}`;
  drawSheet(null);
}

function drawSheet(res) {
  const svg = $("sheet");
  const [W, H] = SHEET.size_mm;
  svg.innerHTML = "";
  svg.setAttribute("viewBox", `-10 -10 ${W + 20} ${H + 20}`);
  TR.svg("rect", { x: 0, y: 0, width: W, height: H, fill: "#f4f4f4" }, svg);
  for (const m of SHEET.markers) TR.svg("rect", { x: m.center[0] - SHEET.marker_mm / 2, y: m.center[1] - SHEET.marker_mm / 2, width: SHEET.marker_mm, height: SHEET.marker_mm, fill: "#111" }, svg);
  const spots = res && res.spots ? Object.fromEntries(res.spots.map((s) => [s.n, s])) : {};
  for (const t of SHEET.targets) {
    TR.svg("circle", { cx: t.xy[0], cy: t.xy[1], r: t.radius, fill: "none", stroke: "#333", "stroke-width": 0.6 }, svg);
    const s = spots[t.n];
    if (s && s.found) {
      TR.svg("circle", { cx: s.found[0], cy: s.found[1], r: t.radius, fill: "#d0021b", "fill-opacity": 0.35, stroke: "#d0021b", class: "found" }, svg);
      TR.svg("line", { x1: t.xy[0], y1: t.xy[1], x2: s.found[0], y2: s.found[1], stroke: "#000", "stroke-width": 0.8 }, svg);
    }
    const label = s ? (s.error_mm === null ? `#${t.n} missing` : `#${t.n} ${s.error_mm.toFixed(1)} mm`) : `#${t.n}`;
    TR.svg("text", { x: t.xy[0], y: t.xy[1] + t.radius + 8, "font-size": 7, "text-anchor": "middle", fill: s && s.error_mm === null ? "#d0021b" : "#000", class: "spot-label" }, svg).textContent = label;
  }
}

function showReg(r) {
  return `sheet found: ${r.markers_found.length} of 4 markers, residual ${r.residual_px.toFixed(2)} px, σ ${r.sigma_mm_median.toFixed(2)} mm median (${TR.esc(r.camera)})`;
}

$("empty").addEventListener("click", async () => {
  const r = await TR.api("POST", "/api/selftest/empty", { board: $("board").value }).catch(() => null);
  if (r) { $("reg").textContent = "empty sheet captured; " + showReg(r); TR.toast("empty sheet captured"); }
});
$("measure").addEventListener("click", async () => {
  $("result").innerHTML = '<p class="muted">measuring…</p>';
  const r = await TR.api("POST", "/api/selftest/measure", { board: $("board").value }).catch((e) => { $("result").innerHTML = `<p class="bad">${TR.esc(e.message)}</p>`; return null; });
  if (!r) return;
  $("reg").innerHTML = showReg(r.registration);
  if (!r.ok) { $("result").innerHTML = `<p class="bad unavailable">${TR.esc(r.error)}</p>`; drawSheet(null); return; }
  const o = r.overall;
  $("result").innerHTML = `<table class="kv"><tr><th>overall</th><td class="overall">${o ? `mean ${o.mean_mm.toFixed(2)} mm, median ${o.median_mm.toFixed(2)} mm, RMS ${o.rms_mm.toFixed(2)} mm, worst ${o.max_mm.toFixed(2)} mm over ${o.spots} spots` : "no piece found"}</td></tr>
    <tr><th>missing</th><td>${r.missing.length ? r.missing.map((n) => "#" + n).join(", ") : "none"}${r.extra ? `; ${r.extra} detection(s) off the targets` : ""}</td></tr>
    <tr><th>detector</th><td>${TR.esc(r.method)}</td></tr></table>
    <table class="spots"><thead><tr><th>spot</th><th>error</th><th>dx</th><th>dy</th><th>σ</th></tr></thead><tbody>
    ${r.spots.map((s) => `<tr data-n="${s.n}"><td>#${s.n}</td>${s.error_mm === null ? '<td colspan="4" class="bad">missing</td>' : `<td>${s.error_mm.toFixed(2)} mm</td><td>${s.dx_mm.toFixed(1)}</td><td>${s.dy_mm.toFixed(1)}</td><td>${s.sigma_mm.toFixed(2)}</td>`}</tr>`).join("")}</tbody></table>`;
  drawSheet(r);
});
$("board").addEventListener("change", loadSheet);

(async function () {
  const boards = (await TR.api("GET", "/api/boards")).boards;
  const cur = await TR.api("GET", "/api/current").catch(() => ({ match: null }));
  $("board").innerHTML = boards.map((b) => `<option ${cur.match && cur.match.board === b.ref ? "selected" : ""}>${TR.esc(b.ref)}</option>`).join("");
  loadSheet();
})();
