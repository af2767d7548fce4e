// Live table: state from /api/events; the board and the video overlays drawn here from that state.
"use strict";

let VIEW = null, FRAME = null, BOARD = null, BOARDREF = null, CALLSHOWN = null;
const $ = (id) => document.getElementById(id);

async function ensureBoard(ref) {
  if (BOARDREF === ref) return;
  BOARDREF = ref;
  try {
    BOARD = (await TR.loadBoard(ref)).board;
    TR.drawBoard($("board"), BOARD);
  } catch (e) { BOARD = null; }
  drawAll();
}

function pieces() {
  if (FRAME && FRAME.pieces && FRAME.pieces.length) return FRAME.pieces;
  return VIEW ? TR.piecesFromState(VIEW) : [];
}

function shapes() {
  const c = VIEW && VIEW.last_call;
  return c ? c.verdict.evidence.shapes : [];
}

function ghost() {
  // before-the-turn positions of the call on show, while the ghost toggle is on
  const c = VIEW && (VIEW.pending.length ? VIEW.pending[VIEW.pending.length - 1] : VIEW.last_call);
  return c && $("ghost").checked ? c.verdict.evidence.ghost || [] : [];
}

function drawAll() {
  if (BOARD) {
    TR.drawPieces($("board"), pieces(), VIEW && VIEW.identities);
    TR.drawShapes($("board"), shapes());
    TR.drawGhost($("board"), ghost());
  }
  drawVideoOverlay();
}

function drawVideoOverlay() {
  const svg = $("over");
  svg.innerHTML = "";
  if (!FRAME || !FRAME.live || !FRAME.mat_to_image || !FRAME.size || !BOARD) return;
  const H = FRAME.mat_to_image;
  svg.setAttribute("viewBox", `0 0 ${FRAME.size[0]} ${FRAME.size[1]}`);
  const poly = (pts, cls) => TR.svg("polygon", { class: cls, points: pts.map((p) => TR.project(H, p).join(",")).join(" ") }, svg);
  const circlePts = (c, r) => Array.from({ length: 48 }, (_, i) => [c[0] + r * Math.cos(i * Math.PI / 24), c[1] + r * Math.sin(i * Math.PI / 24)]);
  for (const [name, r] of Object.entries(BOARD.regions || {})) {
    if (r.kind === "half" || r.kind === "three-point") continue;
    let pts = null;
    if (r.rect) pts = [[r.rect[0], r.rect[1]], [r.rect[2], r.rect[1]], [r.rect[2], r.rect[3]], [r.rect[0], r.rect[3]]];
    else if (r.circle) pts = circlePts(r.circle, r.circle[2]);
    else if (r.polygon) pts = r.polygon;
    if (pts) {
      const el = poly(pts, "region");
      el.setAttribute("fill", TR.KIND_COLOURS[r.kind] || "#aaa");
      el.setAttribute("stroke", TR.KIND_COLOURS[r.kind] || "#aaa");
    }
  }
  (FRAME.pieces || []).forEach((p, i) => {
    const team = (p.attributes && p.attributes.team) || (p.kind === "ball" ? "ball" : "");
    const el = poly(circlePts(p.xy, p.radius || 10), "piece");
    el.setAttribute("fill", TR.PIECE_COLOURS[team] || "#555");
    el.dataset.index = i;
    const who = TR.identityOf(p, VIEW && VIEW.identities);
    if (who) {
      const at = TR.project(H, [p.xy[0], p.xy[1] - (p.radius || 10) - 8]);
      TR.idText(svg, at, who, VIEW && VIEW.identities);
    }
  });
  TR.drawShapes(svg, shapes(), (p) => TR.project(H, p));
  TR.drawGhost(svg, ghost(), (p) => TR.project(H, p));
}

function renderState(view) {
  if (!view.current) return;  // another match changed (a judge working on an old one)
  VIEW = view;
  $("game-title").textContent = `${view.match.title} · ${view.game} on ${view.board}`;
  $("match-title").textContent = view.match.title;
  $("panel").innerHTML = TR.renderPanel(view);
  const acts = $("actions");
  acts.innerHTML = "";
  view.legal.forEach((a, i) => {
    const b = document.createElement("button");
    b.className = "act";
    b.dataset.index = i;
    b.innerHTML = (i < 9 ? `<kbd>${i + 1}</kbd>` : "") + TR.esc(TR.actionLabel(a));
    acts.appendChild(b);
  });
  $("legal-count").textContent = view.legal_count > view.legal.length ? `(${view.legal.length} of ${view.legal_count} shown)` : `(${view.legal_count})`;
  const pending = view.pending.length ? view.pending[view.pending.length - 1] : view.last_call;
  const shown = pending ? `${pending.id}:${pending.status}:${(pending.disputes || []).length}` : "";
  if (shown !== CALLSHOWN || !pending) {  // keep a half-typed reason while the state streams in
    CALLSHOWN = shown;
    $("call").innerHTML = pending ? TR.callCard(pending, { dispute: true }) : "none yet";
  }
  $("events").innerHTML = view.events.slice().reverse().map((e) => {
    const what = e.action ? TR.actionLabel(e.action) : e.question || e.reason ||
      (e.identity ? `${e.identity}${e.unsure ? ": a guess, please check (click the disc to name it)" : ""}` : "");
    const evs = (e.events || []).map((x) => x.kind).join(", ");
    return `<div><span class="muted">#${e.seq} ${TR.esc(e.kind)}</span> ${TR.esc(what)} ${evs ? "→ " + TR.esc(evs) : ""}</div>`;
  }).join("");
  $("undo").disabled = !view.can_undo;
  ensureBoard(view.board);
  drawAll();
}

function play(i) {
  if (!VIEW || !VIEW.legal[i]) return;
  const a = VIEW.legal[i];
  TR.api("POST", `/api/matches/${VIEW.match.id}/actions`, { action: a, kind: "action", actor: "table" }).catch(() => {});
}

$("actions").addEventListener("click", (ev) => {
  const b = ev.target.closest("button.act");
  if (b) play(Number(b.dataset.index));
});
$("undo").addEventListener("click", () => VIEW && TR.api("POST", `/api/matches/${VIEW.match.id}/undo`, { actor: "table", reason: "undo button" }).catch(() => {}));
TR.wireCalls($("call"));
$("push").addEventListener("click", () => {
  let a;
  try { a = JSON.parse($("custom").value); } catch (e) { TR.toast("not JSON: " + e.message, true); return; }
  const kind = document.querySelector("input[name=ckind]:checked").value;
  TR.api("POST", `/api/matches/${VIEW.match.id}/actions`, { action: a, kind, actor: "table" }).then(() => { $("custom").value = ""; }).catch(() => {});
});
$("ghost").addEventListener("change", drawAll);
// click a disc on the board or the video: which dinosaur / racer is it?
TR.wireIdentify($("board"), pieces, () => VIEW);
TR.wireIdentify($("over"), () => (FRAME && FRAME.pieces) || [], () => VIEW);

document.addEventListener("keydown", (ev) => {
  if (ev.target.matches("input, textarea, select") || ev.ctrlKey || ev.metaKey || ev.altKey) return;
  if (/^[1-9]$/.test(ev.key)) play(Number(ev.key) - 1);
  else if (ev.key === "u") $("undo").click();
  else if (ev.key === "c") { const b = document.querySelector("#call button.confirm"); if (b) b.click(); }
  else if (ev.key === "o") { const b = document.querySelector("#call button.override"); if (b) b.click(); }
});

function setFrame(info) {
  if (info && info.demo) {  // which demo path makes the calls (GET /api/frame only)
    const d = info.demo;
    $("demo-path").hidden = false;
    $("demo-path").className = `demo-path path-${d.path}`;
    $("demo-path").textContent = `demo: ${d.label}`;
    $("demo-path").title = d.why || "";
  }
  FRAME = info;
  const live = !!(info && info.live);
  $("mjpeg").hidden = !live;
  $("novideo").hidden = live;
  $("source").textContent = live ? `source: ${info.source || "camera"}` : "";
  drawAll();
}

TR.events({ state: renderState, frame: setFrame, deleted: () => location.reload() });
TR.api("GET", "/api/frame").then(setFrame).catch(() => {});
