"use strict";
const $ = (id) => document.getElementById(id);
let GAMES = [];

async function load() {
  GAMES = (await TR.api("GET", "/api/games")).games;
  $("game").innerHTML = GAMES.map((g) => `<option>${TR.esc(g.game)}</option>`).join("");
  fillBoards();
  const boards = (await TR.api("GET", "/api/boards")).boards;
  const cur = await TR.api("GET", "/api/current").catch(() => ({ match: null }));
  $("regboard").innerHTML = boards.map((b) => `<option ${cur.match && cur.match.board === b.ref ? "selected" : ""}>${TR.esc(b.ref)}</option>`).join("");
  $("boards").innerHTML = boards.map((b) => `<tr><td>${TR.esc(b.ref)}</td><td>${TR.esc(b.origin)}</td>
    <td><a href="/setup/board/${TR.esc(b.ref)}">edit</a></td></tr>`).join("");
}

function fillBoards() {
  const g = GAMES.find((x) => x.game === $("game").value);
  $("boardsel").innerHTML = (g ? g.boards : []).map((b) => `<option>${TR.esc(b)}</option>`).join("");
  $("setupjson").value = JSON.stringify((g && g.example_setup) || {}, null, 1);
}

$("game").addEventListener("change", fillBoards);
$("newmatch").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const f = ev.target;
  let setup;
  try { setup = JSON.parse(f.setup.value || "{}"); } catch (e) { TR.toast("setup is not valid JSON: " + e.message, true); return; }
  try {
    await TR.api("POST", "/api/matches", { game: f.game.value, board: f.board.value, title: f.title.value, setup });
    location.href = "/";
  } catch (e) { /* the toast shows the server's message */ }
});
load();

// mat registration with live feedback
async function register(reset) {
  const out = $("regout");
  let r;
  try { r = await TR.api("POST", "/api/registration", { board: $("regboard").value, reset: !!reset }); }
  catch (e) { out.textContent = e.message; out.className = "bad"; return; }
  const found = `${r.markers_found.length} of ${r.markers_expected.length} markers (${r.markers_found.join(", ") || "none"})`;
  if (!r.ok) { out.innerHTML = `<b class="bad">not registered</b>: ${TR.esc(found)}. ${TR.esc(r.error)}`; out.className = ""; return; }
  const drift = r.drift ? `<div class="${r.drift.moved ? "alarm" : ""}">${TR.esc(r.drift.message)}</div>` : "<div>reference set</div>";
  out.className = "";
  out.innerHTML = `<table class="kv"><tr><th>markers</th><td class="found">${TR.esc(found)}</td></tr>
    <tr><th>residual</th><td>${r.residual_px.toFixed(3)} px over ${r.n_points} corners</td></tr>
    <tr><th>σ on the mat</th><td>${r.sigma_mm_median.toFixed(2)} mm median, ${r.sigma_mm_max.toFixed(2)} mm worst</td></tr>
    <tr><th>camera</th><td class="camnote">${TR.esc(r.camera || "")} (<a href="/setup/camera">calibrate</a>)</td></tr></table>${drift}`;
}
let REGTIMER = null;
$("regnow").addEventListener("click", () => register(false));
$("regreset").addEventListener("click", () => register(true));
$("reglive").addEventListener("change", (ev) => {
  clearInterval(REGTIMER);
  if (ev.target.checked) { register(false); REGTIMER = setInterval(() => register(false), 2000); }
});
$("emptymat").addEventListener("click", async () => {
  const r = await TR.api("POST", "/api/empty-mat", { board: $("regboard").value }).catch(() => null);
  if (r) TR.toast(`empty mat of ${r.board} saved (${r.size[0]}x${r.size[1]})`);
});

// the live-table session on the camera (POST /api/session/start, /stop; GET /api/session)
async function sessionStatus() {
  const st = await TR.api("GET", "/api/session").catch(() => null);
  if (!st) return;
  const out = $("sessionout");
  out.className = st.last_error ? "bad" : "";
  out.textContent = `${st.status}: ${st.frames_processed} frames processed` + (st.calls !== undefined ? `, ${st.calls} calls` : "")
    + (st.last_error ? ` (last error: ${st.last_error})` : "");
}
async function sessionCall(what) {
  try { await TR.api("POST", `/api/session/${what}`, {}); }
  catch (e) { $("sessionout").textContent = e.message; $("sessionout").className = "bad"; return; }
  sessionStatus();
}
$("sessionstart").addEventListener("click", () => sessionCall("start"));
$("sessionstop").addEventListener("click", () => sessionCall("stop"));
setInterval(sessionStatus, 2000);
sessionStatus();
