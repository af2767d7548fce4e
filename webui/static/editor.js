// Board editor: the board drawn from its definition (SVG in mat mm) with a handle on every point
// that can be moved. Dragging edits the definition; Save sends it to the server, which validates it
// with calibration.board.parse_board and writes the user's copy (never the shipped file).
"use strict";

const svg = document.getElementById("editor");
const REF = svg.dataset.ref;
let RAW = null, DRAG = null, SEL = null;
const round = (v) => Math.round(v * 2) / 2;

function handles() {
  // [{id, x, y, get: () => [x, y], set: (x, y)}] for every editable point
  const out = [];
  const add = (id, label, get, set) => out.push({ id, label, get, set });
  // larger regions first, so that a small region's handles sit on top (a scoring zone's centre
  // over the three-point arc's centre at the same spot)
  const size = (r) => r.rect ? (r.rect[2] - r.rect[0]) * (r.rect[3] - r.rect[1]) : r.circle ? Math.PI * r.circle[2] ** 2
    : r.polygon ? (Math.max(...r.polygon.map((p) => p[0])) - Math.min(...r.polygon.map((p) => p[0]))) * (Math.max(...r.polygon.map((p) => p[1])) - Math.min(...r.polygon.map((p) => p[1]))) : 0;
  const regions = Object.entries(RAW.regions || {}).sort((a, b) => size(b[1]) - size(a[1]));
  for (const [name, r] of regions) {
    if (r.rect) {
      add(`region:${name}:p0`, `${name} corner 1`, () => [r.rect[0], r.rect[1]], (x, y) => { r.rect[0] = x; r.rect[1] = y; });
      add(`region:${name}:p1`, `${name} corner 2`, () => [r.rect[2], r.rect[3]], (x, y) => { r.rect[2] = x; r.rect[3] = y; });
    } else if (r.circle) {
      add(`region:${name}:center`, `${name} centre`, () => [r.circle[0], r.circle[1]], (x, y) => { r.circle[0] = x; r.circle[1] = y; });
      add(`region:${name}:radius`, `${name} radius`, () => [r.circle[0] + r.circle[2], r.circle[1]],
          (x, y) => { r.circle[2] = Math.max(1, round(Math.hypot(x - r.circle[0], y - r.circle[1]))); });
    } else if (r.polygon) {
      r.polygon.forEach((p, i) => add(`region:${name}:v${i}`, `${name} vertex ${i}`, () => p, (x, y) => { p[0] = x; p[1] = y; }));
    }
  }
  for (const [name, l] of Object.entries(RAW.lines || {})) {
    l.points.forEach((p, i) => add(`line:${name}:${i}`, `line ${name} point ${i}`, () => p, (x, y) => { p[0] = x; p[1] = y; }));
  }
  for (const [name, t] of Object.entries(RAW.tracks || {})) {
    t.hexes.forEach((p, i) => add(`hex:${name}:${i}`, `track ${name} hex ${i}`, () => p, (x, y) => { p[0] = x; p[1] = y; }));
  }
  (RAW.stones || []).forEach((s, i) => add(`stone:${i}`, `stone ${i} (${s.colour})`, () => s.center, (x, y) => { s.center[0] = x; s.center[1] = y; }));
  return out;
}

let HANDLES = [];
function draw() {
  TR.drawBoard(svg, RAW);
  const g = TR.svg("g", { class: "handles" }, svg);
  HANDLES = handles();
  for (const h of HANDLES) {
    const [x, y] = h.get();
    const c = TR.svg("circle", { class: "handle" + (SEL === h.id ? " selected" : ""), cx: x, cy: y, r: 6, "data-handle": h.id }, g);
    TR.svg("title", {}, c).textContent = h.label;
  }
  showSelected();
}

function showSelected() {
  const h = HANDLES.find((x) => x.id === SEL);
  const el = document.getElementById("selected");
  if (!h) { el.textContent = "nothing"; return; }
  const [x, y] = h.get();
  el.innerHTML = `${TR.esc(h.label)}<br>x <input id="hx" type="number" step="0.5" value="${x}" size="7"> y <input id="hy" type="number" step="0.5" value="${y}" size="7"> mm
    <button id="hset">Set</button>`;
  document.getElementById("hset").onclick = () => {
    h.set(round(Number(document.getElementById("hx").value)), round(Number(document.getElementById("hy").value)));
    draw();
  };
}

function toMat(ev) {
  const pt = svg.createSVGPoint();
  pt.x = ev.clientX; pt.y = ev.clientY;
  const p = pt.matrixTransform(svg.getScreenCTM().inverse());
  return [round(p.x), round(p.y)];
}

svg.addEventListener("pointerdown", (ev) => {
  const id = ev.target.dataset && ev.target.dataset.handle;
  if (!id) return;
  DRAG = HANDLES.find((h) => h.id === id);
  SEL = id;
  svg.setPointerCapture(ev.pointerId);
  ev.preventDefault();
});
svg.addEventListener("pointermove", (ev) => {
  if (!DRAG) return;
  const [x, y] = toMat(ev);
  DRAG.set(x, y);
  draw();
});
svg.addEventListener("pointerup", () => { DRAG = null; draw(); });

async function load() {
  const data = await TR.api("GET", `/api/boards/${REF}`);
  RAW = JSON.parse(JSON.stringify(data.board));
  document.getElementById("origin").textContent = `(${data.origin})`;
  document.getElementById("summary").textContent = data.summary;
  draw();
}

document.getElementById("save").addEventListener("click", async () => {
  const res = document.getElementById("result");
  try {
    const r = await TR.api("PUT", `/api/boards/${REF}`, { board: RAW });
    res.textContent = `saved as your copy of ${r.ref}`;
    res.className = "saved";
    document.getElementById("origin").textContent = "(edited)";
    document.getElementById("summary").textContent = r.summary;
  } catch (e) {
    res.textContent = e.message;
    res.className = "error";
  }
});
document.getElementById("revert").addEventListener("click", load);
load();
