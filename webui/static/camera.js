// Setup -> camera calibration: ChArUco views captured or uploaded, solved on the server
// (calibration.intrinsics); the page shows what each view gave and the RMS error.
"use strict";
const $ = (id) => document.getElementById(id);

function show(st) {
  const b = st.board;
  $("board-info").textContent = `ChArUco ${b.squares[0]} x ${b.squares[1]} squares of ${b.square_mm} mm, markers ${b.marker_mm} mm, ${b.dictionary}. ` +
    `${st.usable} usable view(s) of ${st.views.length}; at least ${st.min_views} needed (${st.min_corners_per_view}+ corners each).`;
  $("views").innerHTML = st.views.map((v, i) => `<span class="v ${v.usable ? "ok" : "poor"}" data-id="${v.id}">#${i + 1} ${v.source}: ${v.corners} corners</span>`).join("");
  if (st.camera) showCamera(st.camera, st.max_rms_px);
}

function showCamera(c, maxRms) {
  if (c.error) { $("result").innerHTML = `<p class="bad">${TR.esc(c.error)}</p>`; return; }
  const poor = c.rms_px > maxRms;
  $("result").innerHTML = `<table class="kv">
    <tr><th>RMS reprojection error</th><td class="rms ${poor ? "poor" : "ok"}">${c.rms_px.toFixed(3)} px${poor ? ` (poor: above ${maxRms} px; add views from more angles)` : ""}</td></tr>
    <tr><th>views used</th><td>${c.n_views}${c.skipped.length ? ` (skipped: ${TR.esc(c.skipped.join(", "))})` : ""}</td></tr>
    <tr><th>image size</th><td>${c.image_size[0]} x ${c.image_size[1]} px</td></tr>
    <tr><th>focal length</th><td>fx ${c.fx.toFixed(1)} px, fy ${c.fy.toFixed(1)} px; centre (${c.cx.toFixed(1)}, ${c.cy.toFixed(1)})</td></tr>
    <tr><th>distortion</th><td>${c.dist.map((d) => d.toFixed(4)).join(", ")}</td></tr>
    <tr><th>saved</th><td>${TR.esc(c.file)} in the data folder (mat registration uses it)</td></tr></table>`;
}

let MAXRMS = 1.5;
async function refresh() {
  const st = await TR.api("GET", "/api/camera");
  MAXRMS = st.max_rms_px;
  show(st);
}

$("capture").addEventListener("click", async () => {
  const v = await TR.api("POST", "/api/camera/views", {}).catch(() => null);
  if (v) TR.toast(v.usable ? `view kept: ${v.corners} corners` : `only ${v.corners} corners: this view will be skipped`, !v.usable);
  refresh();
});
$("upload").addEventListener("change", async (ev) => {
  for (const f of ev.target.files) {
    const headers = { "Content-Type": f.type };
    const token = sessionStorage.getItem("tableref-token");
    if (token) headers["X-Tableref-Token"] = token;
    const r = await fetch("/api/camera/views", { method: "POST", headers, body: f });
    if (!r.ok) TR.toast(`${f.name}: ${(await r.json()).error}`, true);
  }
  ev.target.value = "";
  refresh();
});
$("clear").addEventListener("click", () => TR.api("DELETE", "/api/camera/views").then(refresh).catch(() => {}));
$("solve").addEventListener("click", async () => {
  $("result").innerHTML = '<p class="muted">solving…</p>';
  const c = await TR.api("POST", "/api/camera/solve", {}).catch((e) => { $("result").innerHTML = `<p class="bad">${TR.esc(e.message)}</p>`; return null; });
  if (c) showCamera(c, MAXRMS);
});
refresh();
