// Setup -> assigning identities: click a disc (camera view or board), choose which piece it is.
"use strict";
let VIEW = null, FRAME = null, BOARDREF = null, BOARD = null;
const $ = (id) => document.getElementById(id);

function pieces() {
  if (FRAME && FRAME.pieces && FRAME.pieces.length) return FRAME.pieces;
  return VIEW ? TR.piecesFromState(VIEW) : [];
}

function draw() {
  if (BOARD) TR.drawPieces($("board"), pieces(), VIEW && VIEW.identities);
  const svg = $("over");
  svg.innerHTML = "";
  if (FRAME && FRAME.mat_to_image && FRAME.size) {
    const H = FRAME.mat_to_image;
    svg.setAttribute("viewBox", `0 0 ${FRAME.size[0]} ${FRAME.size[1]}`);
    (FRAME.pieces || []).forEach((p, i) => {
      const pts = Array.from({ length: 36 }, (_, k) => TR.project(H, [p.xy[0] + (p.radius || 10) * Math.cos(k * Math.PI / 18), p.xy[1] + (p.radius || 10) * Math.sin(k * Math.PI / 18)]));
      const el = TR.svg("polygon", { class: "piece", "data-index": i, points: pts.map((q) => q.join(",")).join(" ") }, svg);
      const who = TR.identityOf(p, VIEW && VIEW.identities);
      el.setAttribute("fill", who ? "#ff0" : "#555");
      if (who) {
        const at = TR.project(H, [p.xy[0], p.xy[1] - (p.radius || 10) - 8]);
        TR.idText(svg, at, who, VIEW && VIEW.identities);
      }
    });
  }
  const ids = (VIEW && VIEW.identities) || {};
  const names = (VIEW && VIEW.piece_names) || Object.keys(ids);
  $("idtable").innerHTML = VIEW ? names.map((n) => {
    const v = ids[n];
    const check = v && v.unsure ? ` <span class="unsure" title="${TR.esc(v.why || "")}">please check: ${TR.esc(v.why || "a guess")}</span>` : "";
    return `<tr data-name="${TR.esc(n)}"><th>${TR.esc(n)}</th><td>${v ? `${v.track !== null ? "track " + v.track + ", " : ""}${v.xy ? `at (${v.xy[0].toFixed(0)}, ${v.xy[1].toFixed(0)}) mm` : ""} <span class="muted">by ${TR.esc(v.who)}</span>${check}` : '<span class="muted">not assigned</span>'}</td></tr>`;
  }).join("") : "";
}

async function onState(view) {
  if (!view.current) return;
  VIEW = view;
  if (BOARDREF !== view.board) {
    BOARDREF = view.board;
    BOARD = (await TR.loadBoard(view.board).catch(() => null));
    if (BOARD) { BOARD = BOARD.board; TR.drawBoard($("board"), BOARD); }
  }
  draw();
}
function onFrame(info) { FRAME = info; draw(); }
TR.wireIdentify($("board"), pieces, () => VIEW);
TR.wireIdentify($("over"), () => (FRAME && FRAME.pieces) || [], () => VIEW);
TR.events({ state: onState, frame: onFrame });
TR.api("GET", "/api/frame").then(onFrame).catch(() => {});
