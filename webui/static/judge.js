// Judge review: pending calls with their frames (a scrubber over the recorded evidence), the
// measurement drawn on the board in mat mm, and a decision with a reason, recorded with who and when.
"use strict";

let SHOWN = "";
let VIEWNOW = null;
const PICK = {};
const $ = (id) => document.getElementById(id);

function item(call, board) {
  const v = call.verdict;
  const frames = v.evidence.frames;
  const scrub = frames.length > 1
    ? `<input type="range" min="0" max="${frames.length - 1}" value="0" class="scrub"> <span class="muted fno">frame 1 of ${frames.length}</span>` : "";
  return `<div class="card judge-item" data-call="${call.id}">
    <div class="frames">${frames.length ? `<img class="frame" src="/api/evidence/${TR.esc(frames[0])}" alt="evidence frame">` : '<p class="muted">no evidence frames</p>'}
      ${scrub}<svg class="board judge-board"></svg>
      <div class="muted">Measure: click two pieces (edge-to-edge gap), or a piece then a region (overlap).</div>
      <div class="measure-out"></div></div>
    <div>${TR.callCard(call, { buttons: false })}
      <form class="decide">
        <label>who <input name="who" required placeholder="your name" value="${TR.esc(localStorage.getItem("judge-name") || "")}"></label><br>
        <label>reason <textarea name="reason" rows="2" cols="34" placeholder="${v.answer === "too_close" ? "needed for a too-close call" : "optional"}"></textarea></label><br>
        <button type="submit" name="decision" value="confirm" class="confirm">Confirm ${v.proposed_action ? "(apply proposal)" : ""}</button>
        <button type="submit" name="decision" value="override" class="override">Override ${v.alternative_action ? "(apply alternative)" : ""}</button>
        <button type="submit" name="decision" value="dismiss">Dismiss</button>
      </form></div></div>`;
}

async function render(view) {
  if (!view.current) return;
  VIEWNOW = view;
  const pending = view.pending;
  const key = pending.map((c) => c.id).join(",");
  $("qcount").textContent = `(${pending.length} pending)`;
  if (key !== SHOWN) {
    SHOWN = key;
    const board = (await TR.loadBoard(view.board).catch(() => null));
    $("queue").innerHTML = pending.length ? pending.map((c) => item(c, board)).join("") : '<p class="muted">Nothing to review.</p>';
    if (board) {
      document.querySelectorAll(".judge-item").forEach((el) => {
        const call = pending.find((c) => c.id === el.dataset.call);
        const svg = el.querySelector("svg.judge-board");
        TR.drawBoard(svg, board.board);
        TR.drawPieces(svg, TR.piecesFromState(view), view.identities);
        TR.drawShapes(svg, call.verdict.evidence.shapes);
        TR.drawGhost(svg, call.verdict.evidence.ghost);
      });
    }
  }
  const open = (c) => c.status === "pending" || c.status === "disputed";
  const decided = view.calls.filter((c) => (c.decision || c.status === "applied") && !open(c)).reverse();
  const auditKey = JSON.stringify(decided.map((c) => [c.id, c.status, (c.history || []).length]));
  if (auditKey === AUDITED) return;  // keep a half-typed dispute reason
  AUDITED = auditKey;
  $("audit").innerHTML = decided.map((c) => {
    const d = c.decision || { t: c.t, who: "referee (applied at once)", reason: "" };
    const hist = (c.history || []).map((h) => `${TR.esc(h.status || h.kind)} by ${TR.esc(h.who)}`).join("; ");
    return `<tr data-call="${c.id}"><td>${new Date(d.t * 1000).toLocaleTimeString()}</td><td>${TR.esc(c.verdict.question)}</td>
     <td>${TR.esc(c.verdict.answer)}</td><td>${TR.fmtMm(c.verdict.margin_mm)}</td><td class="st">${TR.esc(c.status)}${hist ? `<div class="muted">before: ${hist}</div>` : ""}</td>
     <td>${TR.esc(d.who)}</td><td>${TR.esc(d.reason)}</td>
     <td class="dispute-cell"><input class="dreason" placeholder="reason to reopen" size="16"> <button class="dispute danger">Dispute</button></td></tr>`;
  }).join("");
}
let AUDITED = "";

// reopen a decided call: it goes back to the queue with the reason
$("audit").addEventListener("click", (ev) => {
  const b = ev.target.closest("button.dispute");
  if (!b) return;
  const row = b.closest("tr");
  const reason = row.querySelector("input.dreason").value.trim();
  const who = ($("judge-who").value || localStorage.getItem("judge-name") || "").trim();
  if (!who) { TR.toast("say who disputes (the name box above)", true); $("judge-who").focus(); return; }
  localStorage.setItem("judge-name", who);
  TR.api("POST", `/api/calls/${row.dataset.call}/dispute`, { who, reason }).then(() => TR.toast("call reopened: it is back in the queue")).catch(() => {});
});
$("judge-who").value = localStorage.getItem("judge-name") || "";

$("queue").addEventListener("input", (ev) => {
  if (!ev.target.classList.contains("scrub")) return;
  const item = ev.target.closest(".judge-item");
  const i = Number(ev.target.value);
  TR.api("GET", `/api/calls/${item.dataset.call}`).then((c) => {
    item.querySelector("img.frame").src = `/api/evidence/${c.verdict.evidence.frames[i]}`;
    item.querySelector(".fno").textContent = `frame ${i + 1} of ${c.verdict.evidence.frames.length}`;
  }).catch(() => {});
});

// the measure tool: the referee measures (GET /api/measure); the page only shows the result
$("queue").addEventListener("click", async (ev) => {
  const item = ev.target.closest(".judge-item");
  const svg = ev.target.closest("svg.judge-board");
  if (!item || !svg || !VIEWNOW) return;
  const id = item.dataset.call;
  const pieceId = ev.target.dataset && ev.target.dataset.piece;
  const region = ev.target.dataset && ev.target.dataset.region;
  const pieces = TR.piecesFromState(VIEWNOW);
  const out = item.querySelector(".measure-out");
  if (pieceId) {
    const p = pieces.find((q) => q.id === pieceId);
    if (!p) return;
    ev.target.classList.add("picked");
    if (!PICK[id]) { PICK[id] = p; out.textContent = `${pieceId}: now click a second piece or a region`; return; }
    const a = PICK[id];
    delete PICK[id];
    const q = new URLSearchParams({ board: VIEWNOW.board, a: `${a.xy[0]},${a.xy[1]},${a.radius}`, b: `${p.xy[0]},${p.xy[1]},${p.radius}`, na: a.id, nb: p.id });
    const r = await TR.api("GET", `/api/measure?${q}`).catch(() => null);
    if (!r) return;
    out.innerHTML = `<b>${TR.esc(a.id)}</b> ↔ <b>${TR.esc(p.id)}</b>: gap <b class="gap">${r.gap_mm.toFixed(1)} mm</b>
      = ${r.short_cards.toFixed(2)} short card lengths (${r.short_card_mm} mm) = ${r.long_cards.toFixed(2)} long (${r.long_card_mm} mm)`;
    TR.drawShapes(svg, r.verdict.evidence);
  } else if (region && PICK[id]) {
    const a = PICK[id];
    delete PICK[id];
    ev.target.classList.add("picked");
    const q = new URLSearchParams({ board: VIEWNOW.board, a: `${a.xy[0]},${a.xy[1]},${a.radius}`, region, na: a.id });
    const r = await TR.api("GET", `/api/measure?${q}`).catch(() => null);
    if (!r) return;
    out.innerHTML = `<b>${TR.esc(a.id)}</b> ${r.overlaps ? "overlaps" : "does not overlap"} <b>${TR.esc(region)}</b>:
      margin <b class="gap">${r.overlap_mm.toFixed(1)} mm</b> (${r.overlaps ? "inside by" : "short by"} ${Math.abs(r.overlap_mm).toFixed(1)} mm)`;
    TR.drawShapes(svg, r.verdict.evidence);
  }
});

$("queue").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const form = ev.target;
  const decision = (ev.submitter && ev.submitter.value) || "confirm";
  const who = form.who.value.trim();
  localStorage.setItem("judge-name", who);
  const id = form.closest(".judge-item").dataset.call;
  TR.decide(id, decision, who, form.reason.value.trim()).then((r) => TR.toast(`call ${r.status}`)).catch(() => {});
});

TR.events({ state: render });
