// The game panel per game and the one-line score for the overlay: they only DISPLAY the engine's
// state (``view.state``) and what it offers (``view.extras``); no rule is decided here.
"use strict";

TR.panels = {};
const esc = (s) => TR.esc(s);
const list = (xs) => (xs && xs.length ? xs.map(esc).join(", ") : "–");
const kv = (rows) => `<table class="kv">${rows.map(([k, v]) => `<tr><th>${esc(k)}</th><td>${v}</td></tr>`).join("")}</table>`;
const short = (pid) => String(pid || "").split(":").pop().replace(/_/g, " ");

TR.panels["dino-dunk"] = {
  score(view) {
    const s = view.state, sides = s.sides || [];
    return sides.map((side) => ({ label: side, value: s.score[side] }));
  },
  render(view) {
    const s = view.state, x = view.extras || {};
    const clock = s.clock || {};
    const turn = s.turn || {};
    const ballAt = s.ball.carrier ? short(s.ball.carrier) + ` (${s.ball.carrier.split(":")[0]})` : s.ball.loose ? "loose" : "off the mat";
    const activated = (turn.activated || []).map(short);
    const mySide = turn.side;
    const canAct = (x.can_act || []).filter((p) => p.startsWith(mySide + ":")).map(short);
    const waiting = x.waiting ? `${x.waiting.kind || ""} ${x.waiting.expects || ""} ${short(x.waiting.piece || "")}` : "";
    return kv([
      ["score", (s.sides || []).map((d) => `<b class="score-${esc(d)}">${esc(d)} ${s.score[d]}</b>`).join(" – ") + ` (to ${s.target_score})`],
      ["shot clock", `<span class="clock">${esc(clock.side || "–")} ${clock.space}/${x.shot_clock_turns || "?"}</span>`],
      ["possession", `offense <b>${esc(s.offense || "–")}</b>; ball ${esc(ballAt)}`],
      ["turn", turn.number ? `${turn.number}, ${esc(mySide)} to play` : "–"],
      ["activated", activated.length ? list(activated) : "none yet"],
      ["can still act", canAct.length ? `${canAct.length}: ${list(canAct)}` : "–"],
      ["phase", esc(s.phase) + (waiting ? ` · waiting for ${esc(waiting)}` : "")],
    ]);
  },
};

TR.panels["dodo-dash"] = {
  score(view) {
    return (view.state.racers || []).map((r) => ({ label: r.id, value: r.pos }));
  },
  render(view) {
    const s = view.state;
    const racers = (s.racers || []).map((r) =>
      `<tr><th>${esc(r.id)}</th><td>hex ${esc(r.pos)}</td><td title="${esc((r.hand || []).join(", "))}">${(r.hand || []).length} cards</td><td>${esc(r.tokens || 0)} tokens</td>
       <td>${(r.taken || []).length ? "took " + list(r.taken) : ""}</td></tr>`).join("");
    const traps = ((s.layout && s.layout.traps) || []).join(", ");
    return `<table class="kv racers">${racers}</table>` + kv([
      ["round", esc(s.round)], ["phase", esc(s.phase)], ["traps", traps || "–"],
    ]);
  },
};

TR.panels.morris = {
  score(view) {
    const s = view.state;
    const saved = s.shelters.reduce((n, sh) => n + sh.eggs.filter((e) => e).length, 0);
    return [{ label: "saved", value: saved }, { label: "hunter", value: `${s.hunter}/${s.path.length}` }];
  },
  render(view) {
    const s = view.state;
    const nest = Object.entries(s.nest).map(([c, n]) => `<span class="egg ${esc(c)}">${esc(c)} ${n}</span>`).join(" ");
    const shelters = s.shelters.map((sh, i) =>
      `<span class="shelter ${sh.flipped ? "flipped" : ""}" title="back ${sh.back}">#${i + 1} ${sh.slots.map((c, j) =>
        `<i class="slot ${esc(c)} ${sh.eggs[j] ? "full" : ""}"></i>`).join("")}</span>`).join(" ");
    const path = s.path.map((c, i) => `<i class="stone-dot ${esc(c)} ${i + 1 === s.hunter ? "hunter" : ""}"></i>`).join("");
    return kv([
      ["nest", nest], ["shelters", shelters],
      ["hunter", `${s.hunter === 0 ? "start" : "stone " + s.hunter} of ${s.path.length} <div class="path">${path}</div>`],
      ["toucan", list(s.toucan)], ["set aside", Object.entries(s.set_aside).map(([c, n]) => `${esc(c)} ${n}`).join(", ")],
      ["turn", `${esc(s.players[s.turn])} · ${esc(s.phase)}${s.result ? " · " + esc(s.result) : ""}`],
    ]);
  },
};

TR.panels["dogo-dash"] = {
  score(view) {
    const s = view.state;
    return s.players.map((p, i) => ({ label: p, value: s.piles[i].length }));
  },
  render(view) {
    const s = view.state;
    const rows = s.players.map((p, i) =>
      `<tr><th>${esc(p)}</th><td>hand: ${list(s.hands[i])}</td><td>pile <b>${s.piles[i].length}</b></td>
       <td>${s.chosen && s.chosen[i] ? "chosen" : ""}</td></tr>`).join("");
    const table = (s.table || []).map((t) => esc(typeof t === "string" ? t : JSON.stringify(t))).join(", ");
    return `<table class="kv hands">${rows}</table>` + kv([
      ["table", table || "–"], ["round", `${esc(s.round)}${s.last_round ? " (Last Round)" : ""}`], ["phase", esc(s.phase)],
      ["super pot", list(s.super_pot)],
    ]);
  },
};

TR.scoreText = function (view) {
  const p = TR.panels[view.game];
  if (!p) return view.summary || "";
  return p.score(view).map((x) => `${x.label} ${x.value}`).join(" · ");
};

TR.renderPanel = function (view) {
  const p = TR.panels[view.game];
  let html = p ? p.render(view) : "";
  if (view.outcome) {
    html = `<div class="outcome">Game over: ${view.outcome.winners.length ? "winner(s) " + list(view.outcome.winners) : "no winner"} (${esc(view.outcome.reason)})</div>` + html;
  }
  if (view.problems && view.problems.length) {
    html = `<div class="note bad">${view.problems.length} log row(s) no longer replay and were skipped: ` +
      view.problems.slice(0, 3).map((p) => `#${p.seq} ${esc(p.error)}`).join("; ") + "</div>" + html;
  }
  return html + `<div class="summary">${esc(view.summary)}</div>`;
};
