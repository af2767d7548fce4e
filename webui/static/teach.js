// Setup -> teaching your own pieces: examples in, vision.teach on the server, accuracy out.
"use strict";
const $ = (id) => document.getElementById(id);
let ST = null, FRAME = null, BOARD = null, BOARDREF = null;

async function refresh() {
  ST = await TR.api("GET", "/api/teach");
  if (!$("task").options.length) $("task").innerHTML = Object.keys(ST.tasks).map((t) => `<option>${TR.esc(t)}</option>`).join("");
  const task = ST.tasks[$("task").value];
  $("classes").innerHTML = task.classes.map((c) => `<option value="${TR.esc(c)}">`).join("");
  if (!$("cls").value) $("cls").value = task.classes[0];
  const ex = ST.examples[$("task").value] || {};
  $("examples").innerHTML = Object.keys(ex).length
    ? Object.entries(ex).map(([c, n]) => `<tr data-class="${TR.esc(c)}"><th>${TR.esc(c)}</th><td><span class="count">${n}</span> example(s) ${n < 8 ? '<span class="muted">(about ten is good)</span>' : ""} <button class="clear danger" data-class="${TR.esc(c)}">remove</button></td></tr>`).join("")
    : `<tr><td class="muted">No examples for ${TR.esc($("task").value)} yet.${task.free_classes ? " Name the classes yourself (e.g. green, red)." : " Classes: " + TR.esc(task.classes.join(", "))}</td></tr>`;
  $("profiles").innerHTML = ST.profiles.length ? ST.profiles.map((p) => `<tr><th>${TR.esc(p.profile)}${p.profile === ST.active ? " (active)" : ""}</th><td>${Object.entries(p.tasks).map(([t, i]) => `${TR.esc(t)}: ${(i.cv_accuracy * 100).toFixed(1)}% CV`).join("; ")}</td></tr>`).join("")
    : '<tr><td class="muted">No profiles yet: the shipped models are used.</td></tr>';
  $("active").innerHTML = `<option value="">shipped models only</option>` + ST.profiles.map((p) => `<option ${p.profile === ST.active ? "selected" : ""}>${TR.esc(p.profile)}</option>`).join("");
}

$("task").addEventListener("change", () => { $("cls").value = ""; refresh(); });
$("upload").addEventListener("change", async (ev) => {
  const url = `/api/teach/examples/${encodeURIComponent($("task").value)}/${encodeURIComponent($("cls").value.trim())}`;
  for (const f of ev.target.files) {
    const headers = { "Content-Type": f.type };
    const token = sessionStorage.getItem("tableref-token");
    if (token) headers["X-Tableref-Token"] = token;
    const r = await fetch(url, { method: "POST", headers, body: f });
    if (!r.ok) { TR.toast(`${f.name}: ${(await r.json()).error}`, true); break; }
  }
  ev.target.value = "";
  refresh();
});
$("examples").addEventListener("click", (ev) => {
  const b = ev.target.closest("button.clear");
  if (b) TR.api("DELETE", `/api/teach/examples/${encodeURIComponent($("task").value)}/${encodeURIComponent(b.dataset.class)}`).then(refresh).catch(() => {});
});
$("run").addEventListener("click", async () => {
  $("running").textContent = "teaching… (a few seconds)";
  const body = { task: $("task").value, profile: $("profile").value.trim(), folds: Number($("folds").value) };
  const r = await TR.api("POST", "/api/teach/run", body).catch(() => null);
  $("running").textContent = "";
  if (!r) return;
  const shipped = r.shipped_accuracy === null ? "n/a (your own classes)" : `${(r.shipped_accuracy * 100).toFixed(1)}%`;
  $("result").innerHTML = `<table class="kv"><tr><th>${r.folds}-fold cross-validated accuracy</th><td class="cv">${(r.cv_accuracy * 100).toFixed(1)}%</td></tr>
    <tr><th>folds</th><td>${r.fold_accuracy.map((a) => (a * 100).toFixed(0) + "%").join(" ")}</td></tr>
    <tr><th>per class (recall)</th><td>${Object.entries(r.per_class_recall).map(([c, v]) => `${TR.esc(c)} ${(v * 100).toFixed(0)}%`).join(", ")}</td></tr>
    <tr><th>shipped model on the same examples</th><td>${shipped}</td></tr>
    <tr><th>saved</th><td>${r.kept_shipped ? "not saved: the shipped model does better on these examples, so this task stays with it" : `${TR.esc(r.path)} in the data folder`} (${r.seconds.toFixed(1)} s)</td></tr></table>`;
  refresh();
});
$("use").addEventListener("click", () => TR.api("PUT", "/api/profile", { profile: $("active").value || null }).then((r) => { TR.toast(`active profile: ${r.active || "shipped models"}`); refresh(); }).catch(() => {}));

// capture: click a disc on the board -> cut it out of the latest frame as an example of the class
$("board").addEventListener("click", async (ev) => {
  const el = ev.target.closest("[data-index]");
  if (!el || !FRAME) return;
  const p = FRAME.pieces[Number(el.dataset.index)];
  const r = await TR.api("POST", `/api/teach/examples/${encodeURIComponent($("task").value)}/${encodeURIComponent($("cls").value.trim())}`,
    { xy: p.xy, radius: p.radius || 10 }).catch(() => null);
  if (r) { TR.toast(`${r.class}: ${r.count} example(s)`); refresh(); }
});
async function onFrame(info) {
  FRAME = info;
  const cur = await TR.api("GET", "/api/current").catch(() => null);
  if (cur && cur.match && BOARDREF !== cur.board) {
    BOARDREF = cur.board;
    BOARD = (await TR.loadBoard(cur.board)).board;
    TR.drawBoard($("board"), BOARD);
  }
  if (BOARD) TR.drawPieces($("board"), (FRAME && FRAME.pieces) || []);
}
TR.api("GET", "/api/frame").then(onFrame).catch(() => {});
refresh();
