// tableref: what every page shares. Plain JS, no build step, nothing fetched from outside.
"use strict";

const TR = {};

// -- token: open a page once with ?token=... and it is remembered for this tab ---------------------
(function () {
  const t = new URLSearchParams(location.search).get("token");
  if (t) sessionStorage.setItem("tableref-token", t);
})();

TR.api = async function (method, url, body) {
  const headers = {};
  const token = sessionStorage.getItem("tableref-token");
  if (token) headers["X-Tableref-Token"] = token;
  const opts = { method, headers };
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(body);
  } else if (method !== "GET" && method !== "DELETE") {
    headers["Content-Type"] = "application/json";
    opts.body = "{}";
  }
  const r = await fetch(url, opts);
  let data = null;
  try { data = await r.json(); } catch (e) { data = null; }
  if (!r.ok) {
    const msg = (data && data.error) || `${r.status} ${r.statusText}`;
    TR.toast(msg, true);
    throw new Error(msg);
  }
  return data;
};

TR.toast = function (text, bad) {
  let el = document.getElementById("toast");
  if (!el) {
    el = document.createElement("div");
    el.id = "toast";
    document.body.appendChild(el);
  }
  el.textContent = text;
  el.className = bad ? "toast bad" : "toast";
  clearTimeout(TR._toastTimer);
  TR._toastTimer = setTimeout(() => { el.className = "toast hidden"; }, 4000);
};

TR.esc = function (s) {
  return String(s === null || s === undefined ? "" : s).replace(/[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
};

// -- the event stream -------------------------------------------------------------------------
TR.events = function (handlers) {
  const es = new EventSource("/api/events");
  for (const [name, fn] of Object.entries(handlers)) {
    es.addEventListener(name, (ev) => fn(JSON.parse(ev.data)));
  }
  es.onopen = () => document.body.classList.remove("offline");
  es.onerror = () => document.body.classList.add("offline");
  return es;
};

// -- actions ----------------------------------------------------------------------------------
TR.actionLabel = function (a) {
  const parts = [];
  for (const [k, v] of Object.entries(a)) {
    if (k === "type") continue;
    if (v === false || v === "" || v === null || (Array.isArray(v) && v.length === 0)) continue;
    if (k === "positions") parts.push(`${v.length} positions`);
    else if (v === true) parts.push(k.replace(/_/g, " "));
    else parts.push(`${k.replace(/_/g, " ")}: ${Array.isArray(v) ? JSON.stringify(v) : v}`);
  }
  return a.type + (parts.length ? " · " + parts.join(", ") : "");
};

// -- calls ------------------------------------------------------------------------------------
TR.fmtMm = (x) => (x === null || x === undefined ? "–" : `${Number(x).toFixed(1)} mm`);

TR.callCard = function (call, opts) {
  opts = opts || {};
  const v = call.verdict;
  const thumb = v.evidence.frames.length
    ? `<img class="thumb" alt="evidence" src="/api/evidence/${TR.esc(v.evidence.frames[0])}">`
    : `<div class="thumb none">no image</div>`;
  const pending = call.status === "pending" || call.status === "disputed";
  const answer = v.answer === "too_close" ? "too close to call" : v.answer;
  let decided = "";
  if (call.decision) {
    const d = call.decision;
    const was = call.status === "disputed" ? (d.status || d.kind) : call.status;
    decided = `<div class="decided">${TR.esc(was)} by ${TR.esc(d.who)} at ${new Date(d.t * 1000).toLocaleTimeString()}${d.reason ? ": " + TR.esc(d.reason) : ""}</div>`;
  }
  const disputes = call.disputes || [];
  if (call.status === "disputed" && disputes.length) {
    const last = disputes[disputes.length - 1];
    decided += `<div class="disputed">disputed by ${TR.esc(last.who)} at ${new Date(last.t * 1000).toLocaleTimeString()}: ${TR.esc(last.reason)}</div>`;
  }
  const buttons = pending && opts.buttons !== false
    ? `<div class="buttons"><input class="who" placeholder="who" value="${TR.esc(opts.who || "table")}" size="8">
       <input class="reason" placeholder="reason${v.answer === "too_close" ? " (needed)" : ""}" size="18"><button class="confirm" data-call="${call.id}" title="c">Confirm</button>
       <button class="override" data-call="${call.id}" title="o">Override</button></div>`
    : opts.buttons !== false && opts.dispute ? `<div class="buttons"><input class="who" placeholder="who" value="${TR.esc(opts.who || "table")}" size="8">
       <input class="reason" placeholder="reason to dispute" size="18"><button class="dispute danger" data-call="${call.id}">Dispute</button></div>` : "";
  return `<div class="call ${pending ? "pending" : ""} ${call.status === "disputed" ? "disputed" : ""} ${v.answer}" data-call="${call.id}">
    ${thumb}
    <div class="body">
      <div class="q">${TR.esc(v.question)}</div>
      <div class="a">${TR.esc(answer)} <span class="status">${TR.esc(call.status)}</span></div>
      <div class="nums">margin <b class="margin">${TR.fmtMm(v.margin_mm)}</b> · measured ${TR.fmtMm(v.measured_mm)}
        vs ${TR.fmtMm(v.threshold_mm)} · σ ${TR.fmtMm(v.sigma_mm)}${v.confidence < 1 ? ` · conf ${v.confidence.toFixed(2)}` : ""}</div>
      ${v.proposed_action ? `<div class="prop">if confirmed: ${TR.esc(TR.actionLabel(v.proposed_action))}</div>` : ""}
      ${call.note ? `<div class="note">${TR.esc(call.note)}</div>` : ""}
      ${decided}${buttons}
    </div></div>`;
};

TR.decide = function (callId, decision, who, reason) {
  return TR.api("POST", `/api/calls/${callId}/decision`, { decision, who, reason });
};

// confirm / override buttons inside any element holding call cards
TR.wireCalls = function (root) {
  root.addEventListener("click", (ev) => {
    const b = ev.target.closest("button.confirm, button.override, button.dispute");
    if (!b) return;
    const card = b.closest(".call");
    const who = (card.querySelector("input.who") || {}).value || "table";
    const reason = (card.querySelector("input.reason") || {}).value || "";
    if (b.classList.contains("dispute")) {  // reopen a decided call: back to the judge's queue
      TR.api("POST", `/api/calls/${b.dataset.call}/dispute`, { who, reason }).then(() => TR.toast("call disputed: back in the queue")).catch(() => {});
      return;
    }
    TR.decide(b.dataset.call, b.classList.contains("confirm") ? "confirm" : "override", who, reason)
      .then((r) => TR.toast(`call ${r.status}`)).catch(() => {});
  });
};

TR.project = function (H, p) {
  // mat mm -> image px through the 3x3 homography H (display only)
  const x = H[0][0] * p[0] + H[0][1] * p[1] + H[0][2], y = H[1][0] * p[0] + H[1][1] * p[1] + H[1][2];
  const w = H[2][0] * p[0] + H[2][1] * p[1] + H[2][2];
  return [x / w, y / w];
};

// -- boards as SVG in mat mm ------------------------------------------------------------------
const SVGNS = "http://www.w3.org/2000/svg";
TR.svg = function (tag, attrs, parent) {
  const el = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, v);
  if (parent) parent.appendChild(el);
  return el;
};

TR.KIND_COLOURS = {
  "scoring-zone": "#f5a623", "three-point": "#4a90e2", water: "#3fa7d6", snow: "#e8f4ff", half: "none",
  backboard: "#8b572a", nest: "#c49a6c", landing: "#9b9b9b", shelters: "#7ed321", seat: "#bd10e0",
  deck: "#50e3c2", cell: "none",
};
TR.STONE_COLOURS = { blue: "#2f6fdf", red: "#d0021b", yellow: "#f8e71c", purple: "#9013fe", multi: "url(#multi)" };

TR.drawBoard = function (svg, board) {
  // board: the raw definition (board YAML as JSON). Draws mat, regions, lines, tracks, stones, markers.
  svg.innerHTML = "";
  const [L, W] = board.size_mm;
  svg.setAttribute("viewBox", `-60 -60 ${L + 120} ${W + 120}`);
  const defs = TR.svg("defs", {}, svg);
  const clip = TR.svg("clipPath", { id: "matclip" }, defs);
  TR.svg("rect", { x: 0, y: 0, width: L, height: W }, clip);
  const grad = TR.svg("linearGradient", { id: "multi" }, defs);
  ["#2f6fdf", "#d0021b", "#f8e71c", "#9013fe"].forEach((c, i) => TR.svg("stop", { offset: `${i * 33}%`, "stop-color": c }, grad));
  TR.svg("rect", { x: 0, y: 0, width: L, height: W, class: "mat" }, svg);
  const layer = TR.svg("g", { class: "regions" }, svg);
  for (const [name, r] of Object.entries(board.regions || {})) {
    const colour = TR.KIND_COLOURS[r.kind] || "#aaa";
    const attrs = { class: `region kind-${r.kind || "none"}`, "data-region": name, fill: colour === "none" ? "none" : colour,
                    "fill-opacity": r.kind === "three-point" ? 0.12 : 0.35, stroke: colour === "none" ? "#ccc" : colour };
    if (r.clip === "mat") attrs["clip-path"] = "url(#matclip)";
    let el;
    if (r.rect) el = TR.svg("rect", { ...attrs, x: r.rect[0], y: r.rect[1], width: r.rect[2] - r.rect[0], height: r.rect[3] - r.rect[1] }, layer);
    else if (r.circle) el = TR.svg("circle", { ...attrs, cx: r.circle[0], cy: r.circle[1], r: r.circle[2] }, layer);
    else if (r.polygon) el = TR.svg("polygon", { ...attrs, points: r.polygon.map((p) => p.join(",")).join(" ") }, layer);
    if (el) TR.svg("title", {}, el).textContent = `${name} (${r.kind || "region"})`;
  }
  const lines = TR.svg("g", { class: "lines" }, svg);
  for (const [name, l] of Object.entries(board.lines || {})) {
    TR.svg("polyline", { class: `line kind-${l.kind || "none"}`, "data-line": name, points: l.points.map((p) => p.join(",")).join(" ") }, lines);
  }
  const tracks = TR.svg("g", { class: "tracks" }, svg);
  for (const [name, t] of Object.entries(board.tracks || {})) {
    const traps = new Set(t.traps || []);
    t.hexes.forEach((h, i) => {
      TR.svg("circle", { class: "hex" + (traps.has(i) ? " trap" : ""), cx: h[0], cy: h[1], r: t.hex_mm / 2, "data-track": name, "data-hex": i }, tracks);
    });
  }
  const stones = TR.svg("g", { class: "stones" }, svg);
  (board.stones || []).forEach((s, i) => {
    TR.svg("circle", { class: "stone", cx: s.center[0], cy: s.center[1], r: 12, fill: TR.STONE_COLOURS[s.colour] || s.colour, "data-stone": i }, stones);
  });
  if (board.markers) {
    const m = board.markers, g = TR.svg("g", { class: "markers" }, svg);
    for (const it of m.items) {
      TR.svg("rect", { class: "marker", x: it.center[0] - m.size_mm / 2, y: it.center[1] - m.size_mm / 2, width: m.size_mm, height: m.size_mm }, g);
    }
  }
  TR.svg("g", { class: "pieces" }, svg);
  TR.svg("g", { class: "measure" }, svg);
  return svg;
};

TR.PIECE_COLOURS = { home: "#d0021b", away: "#2f6fdf", ball: "#f5a623" };

TR.drawPieces = function (svg, pieces, identities) {
  // pieces: [{xy: [x, y] mat mm, radius mm, kind, track_id?, attributes: {team, name}}]; identities:
  // the match's {name: {track, xy}} (who the players said each disc is), drawn as a label
  const g = svg.querySelector("g.pieces");
  if (!g) return;
  g.innerHTML = "";
  pieces.forEach((p, i) => {
    const team = (p.attributes && p.attributes.team) || (p.kind === "ball" ? "ball" : "");
    const c = TR.svg("circle", { class: `piece ${p.kind}`, cx: p.xy[0], cy: p.xy[1], r: p.radius || 10,
                                 fill: TR.PIECE_COLOURS[team] || "#555", "data-piece": p.id || "", "data-index": i }, g);
    const who = TR.identityOf(p, identities);
    const label = who || (p.attributes && (p.attributes.name || p.attributes.card)) || p.kind;
    TR.svg("title", {}, c).textContent = label;
    if (who) {
      c.classList.add("named");
      TR.idText(g, [p.xy[0], p.xy[1] - (p.radius || 10) - 6], who, identities);
    }
  });
};

TR.shortName = (name) => String(name || "").split(":").pop().replace(/_/g, " ");
// a disc's name drawn at ``at`` ([x, y] in the parent's units); a name the table session gave as a
// guess (unsure) is marked "?" until a person names the disc
TR.idText = function (parent, at, who, identities) {
  const unsure = !!(identities && identities[who] && identities[who].unsure);
  const el = TR.svg("text", { x: at[0], y: at[1], class: unsure ? "id-label unsure" : "id-label", "data-name": who }, parent);
  el.textContent = TR.shortName(who) + (unsure ? " ?" : "");
  return el;
};

// which name the players gave this disc: by the session's track id, else the nearest named
// position within the disc's radius (+15 mm)
TR.identityOf = function (p, identities) {
  if (!identities) return "";
  let best = "", bestD = Infinity;
  for (const [name, v] of Object.entries(identities)) {
    if (p.track_id !== undefined && p.track_id >= 0 && v.track === p.track_id) return name;
    if (p.id && p.id === name) return name;
    if (v.xy && (v.track === null || v.track === undefined || p.track_id === undefined || p.track_id < 0)) {
      const d = Math.hypot(v.xy[0] - p.xy[0], v.xy[1] - p.xy[1]);
      if (d < bestD && d <= (p.radius || 10) + 15) { best = name; bestD = d; }
    }
  }
  return best;
};

// click a disc (on a board diagram or the video overlay) -> choose which piece it is
TR.wireIdentify = function (root, getPieces, getView) {
  root.addEventListener("click", (ev) => {
    const el = ev.target.closest("[data-index]");
    const view = getView();
    if (!el || !view || !view.match || ev.target.closest(".idpick")) return;
    const p = getPieces()[Number(el.dataset.index)];
    if (!p) return;
    TR.openIdPicker(p, view, ev.clientX, ev.clientY);
  });
};

TR.openIdPicker = function (p, view, x, y) {
  let box = document.getElementById("idpick");
  if (!box) {
    box = document.createElement("div");
    box.id = "idpick";
    box.className = "idpick card";
    document.body.appendChild(box);
  }
  const names = view.piece_names || [];
  const current = TR.identityOf(p, view.identities);
  const track = p.track_id !== undefined && p.track_id >= 0 ? p.track_id : null;
  const choice = names.length
    ? `<select class="idname">${names.map((n) => `<option ${n === current ? "selected" : ""} value="${TR.esc(n)}">${TR.esc(n)}</option>`).join("")}</select>`
    : `<input class="idname" placeholder="name" value="${TR.esc(current)}">`;
  box.innerHTML = `<div class="muted">disc at (${p.xy[0].toFixed(0)}, ${p.xy[1].toFixed(0)}) mm${track !== null ? `, track ${track}` : ""}${current ? ` · now ${TR.esc(current)}` : ""}</div>
    <div>is ${choice} <button class="confirm idok">Assign</button> <button class="idcancel">×</button></div>`;
  box.style.left = `${Math.min(x + 8, window.innerWidth - 340)}px`;
  box.style.top = `${y + 8 + window.scrollY}px`;
  box.hidden = false;
  box.querySelector(".idcancel").onclick = () => { box.hidden = true; };
  box.querySelector(".idok").onclick = () => {
    const name = box.querySelector(".idname").value.trim();
    TR.api("POST", `/api/matches/${view.match.id}/identities`, { name, track, xy: [p.xy[0], p.xy[1]], who: "table" })
      .then(() => { box.hidden = true; TR.toast(`${name} assigned`); }).catch(() => {});
  };
};

TR.drawShapes = function (svg, shapes, project) {
  // the referee's evidence shapes (referee.core.shape_to_dict), in mat mm; ``project`` maps them
  // to another frame (the video) when given
  const P = project || ((p) => p);
  const g = svg.querySelector("g.measure") || svg;
  if (!project) g.innerHTML = "";
  for (const s of shapes || []) {
    if (s.type === "segment" || s.type === "distance") {
      const a = P([s.x0, s.y0]), b = P([s.x1, s.y1]);
      TR.svg("line", { x1: a[0], y1: a[1], x2: b[0], y2: b[1], class: `measure-line role-${s.role || s.type}` }, g);
      const text = s.type === "distance" ? `${s.label ? s.label + " " : ""}${Number(s.mm).toFixed(1)} mm` : s.label;
      if (text) TR.svg("text", { x: (a[0] + b[0]) / 2, y: (a[1] + b[1]) / 2 - 6, class: "measure-label" }, g).textContent = text;
    } else if (s.type === "circle") {
      if (project) {
        const pts = Array.from({ length: 36 }, (_, i) => P([s.x + s.r * Math.cos(i * Math.PI / 18), s.y + s.r * Math.sin(i * Math.PI / 18)]));
        TR.svg("polygon", { points: pts.map((p) => p.join(",")).join(" "), class: `measure-circle role-${s.role}` }, g);
      } else TR.svg("circle", { cx: s.x, cy: s.y, r: s.r, class: `measure-circle role-${s.role}` }, g);
    } else if (s.type === "polygon") {
      TR.svg("polygon", { points: s.points.map((p) => P(p).join(",")).join(" "), class: `measure-circle role-${s.role}` }, g);
    } else if (s.type === "label") {
      const p = P([s.x, s.y]);
      TR.svg("text", { x: p[0], y: p[1], class: "measure-label" }, g).textContent = s.text;
    }
  }
};

TR.drawGhost = function (svg, ghost, project) {
  // where the pieces were before the turn (dashed), so knocked pieces can be put back
  const P = project || ((p) => p);
  const g = svg.querySelector("g.measure") || svg;
  for (const p of ghost || []) {
    if (project) {
      const pts = Array.from({ length: 24 }, (_, i) => P([p.xy[0] + p.radius * Math.cos(i * Math.PI / 12), p.xy[1] + p.radius * Math.sin(i * Math.PI / 12)]));
      TR.svg("polygon", { points: pts.map((q) => q.join(",")).join(" "), class: "ghost" }, g);
    } else {
      TR.svg("circle", { cx: p.xy[0], cy: p.xy[1], r: p.radius, class: "ghost" }, g);
    }
  }
};

// positions the engine stored from facts ({piece: [x, y]}) as pieces, when no camera reports them
TR.piecesFromState = function (view) {
  const pos = (view.state && view.state.positions) || {};
  const out = [];
  for (const [id, xy] of Object.entries(pos)) {
    if (!Array.isArray(xy)) continue;
    const team = id.includes(":") ? id.split(":")[0] : id === "ball" ? "ball" : "";
    const radii = (view.extras && view.extras.piece_radius_mm) || {};
    out.push({ id, xy, radius: radii[id] || (id === "ball" ? 9.5 : 19), kind: id === "ball" ? "ball" : "disc", attributes: { team, name: id } });
  }
  return out;
};

TR.boardCache = {};
TR.loadBoard = async function (ref) {
  if (!TR.boardCache[ref]) TR.boardCache[ref] = TR.api("GET", `/api/boards/${ref}`);
  return TR.boardCache[ref];
};
