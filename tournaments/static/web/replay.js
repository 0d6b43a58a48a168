/* The replay viewer: steps through every action of a finished match, forward and back,
   as one seat saw it (its observation, legal actions, answer and time) or with every
   card shown. Frames come from the server (?game=G&seat=S), re-simulated by the engine,
   with each seat's bot name and the game told in words (what ended each hand, who won).
   Steps and games count from 1 on the page and in links: #g2s34 is game 2, step 34. */
"use strict";
(function () {
  const { el, action, say } = window.Cards;
  const root = document.getElementById("viewer");
  if (!root) return;
  const $ = (id) => document.getElementById(id);
  const LEGAL_SHOWN = 6;
  const PHONE = window.matchMedia("(max-width: 600px)");
  const state = { data: null, pos: 0, game: 0, seat: "all", timer: null, wanted: undefined, drawn: false };

  function seatName(seat) {
    const names = state.data.names || [];
    return names[seat] !== undefined ? names[seat] : "seat " + (seat + 1);
  }

  function botName(bot) {
    const bots = state.data.bots || [];
    return bots[bot] !== undefined ? bots[bot] : "bot " + (bot + 1);
  }

  /* Links: #g<game>s<step>, both from 1; the step after the last is the end of the game. */
  function anchor(game, pos) { return "#g" + (game + 1) + "s" + (pos + 1); }

  function parseAnchor(text) {
    const found = /^#g(\d{1,4})(?:s(\d{1,6})|(end))$/.exec(text || "");
    if (!found) return null;
    return { game: Number(found[1]) - 1, pos: found[3] ? Infinity : Number(found[2]) - 1 };
  }

  /* Load the frames of state.game as state.seat sees them, at step ``pos`` (default: the
     same step when only the seat changed). A newer load started meanwhile wins. */
  async function load(pos) {
    if (pos !== undefined) state.wanted = pos;
    const game = state.game, seat = state.seat;
    const url = root.dataset.frames + "?game=" + game + "&seat=" + seat;
    $("rv-counter").textContent = "loading…";
    const answer = await fetch(url);
    const data = await answer.json();
    if (game !== state.game || seat !== state.seat) return;
    if (!answer.ok) {
      $("rv-step").textContent = data.error || "the replay could not be loaded";
      return;
    }
    const keep = state.data && state.data.index === data.index ? state.pos : 0;
    const wanted = state.wanted;
    state.wanted = undefined;
    state.data = data;
    state.pos = Math.max(0, Math.min(wanted === undefined ? keep : wanted, data.steps.length));
    $("rv-game").value = String(state.game);
    fillSeats();
    $("rv-moves").replaceChildren();
    show();
    // The move list after the table is drawn: the cards come first.
    setTimeout(() => {
      if (state.data === data) { fillMoves(); markMove(); }
      if (!state.drawn) { state.drawn = true; keepTargetInView(); }
    }, 0);
  }

  /* A link to another part of the page (such as #logs) still lands there once the replay
     drawn above it has pushed it down. */
  function keepTargetInView() {
    const hash = window.location.hash;
    if (!hash || parseAnchor(hash)) return;
    const target = document.getElementById(decodeURIComponent(hash.slice(1)));
    if (target && !root.contains(target)) target.scrollIntoView({ block: "start" });
  }

  function fillSeats() {
    const select = $("rv-seat");
    select.replaceChildren(new Option("everyone (all cards)", "all"));
    for (let seat = 0; seat < state.data.players; seat++) {
      select.append(new Option(seatName(seat) + " (seat " + (seat + 1) + ")", String(seat)));
    }
    select.value = state.seat;
  }

  function view() {
    const d = state.data;
    return state.pos < d.steps.length ? d.steps[state.pos].view : d.final;
  }

  /* What the acting seat was asked with: its observation and its legal actions (the
     step's view alone where the frames carry no legal list, and at the end). */
  function raw() {
    const d = state.data;
    const step = state.pos < d.steps.length ? d.steps[state.pos] : null;
    return step && step.legal ? { observation: step.view, legal: step.legal } : view();
  }

  function show() {
    const d = state.data;
    const total = d.steps.length;
    $("rv-counter").textContent = state.pos < total
      ? "step " + (state.pos + 1) + " of " + total
      : "end of game (" + total + " steps)";
    $("rv-prev").disabled = $("rv-first").disabled = state.pos === 0;
    $("rv-next").disabled = $("rv-last").disabled = state.pos === total;
    $("rv-decision").disabled = state.seat === "all";
    const scrub = $("rv-scrub");
    scrub.max = String(total);
    scrub.value = String(state.pos);
    scrub.setAttribute("aria-valuetext", $("rv-counter").textContent);
    if (state.pos === total) stop();
    showStep();
    window.TableDraw.draw($("rv-table"), view(), d, state.pos === total, state.seat);
    $("rv-raw").textContent = JSON.stringify(raw(), null, 1);
    markMove();
    const link = anchor(state.game, state.pos), now = window.location.hash;
    if (now !== link && (!now || parseAnchor(now))) history.replaceState(null, "", link);
  }

  function lines(list, cls) {
    return list.map((parts) => { const p = el("p", cls || ""); p.append(say(parts)); return p; });
  }

  function eventsAt(pos) { return (state.data.events || []).filter((e) => e.step === pos); }

  function showStep() {
    const d = state.data, box = $("rv-step");
    box.replaceChildren();
    const events = eventsAt(state.pos).map((e) => e.say);
    if (state.pos === d.steps.length) {
      const line = el("p", "decision");
      line.append(el("strong", "", "Game over. "), "Scores: " +
        d.result.scores.map((s, i) => seatName(i) + ": " + s).join(", ") + ". All cards are shown.");
      box.append(line, ...lines(events, "event"));
      const outcome = el("div", "outcome");
      outcome.append(el("h3", "", "How it ended"), ...lines(d.outcome || []));
      box.append(outcome);
      return;
    }
    if (events.length) box.append(...lines(events, "event"));
    const step = d.steps[state.pos];
    const faults = d.faults.filter((f) => f.move === state.pos);
    const line = el("p", "decision");
    line.append(el("strong", "", seatName(step.seat)), " answered ", action(step.action));
    let time = " · in " + duration(step.time);
    if (faults.length) time = " · its answer was refused: the engine played its fallback";
    else if (step.time === null) time = " · retired earlier: the engine played its fallback";
    line.append(el("span", "time", time));
    box.append(line);
    if (step.legal) {
      box.append(legalActions(step));
    } else if (state.seat !== "all") {
      box.append(el("p", "note", "Not " + seatName(Number(state.seat)) + "'s decision: its view while " +
        seatName(step.seat) + " acts."));
    }
    faults.forEach((f) => box.append(faultBox(f)));
  }

  /* The legal actions, the chosen one marked; a long list folds on a phone (its summary
     names the count), so the table's cards stay on the first screen. */
  function legalActions(step) {
    const many = step.legal.length > LEGAL_SHOWN;
    const legal = el(many ? "details" : "div", "legal");
    const label = el(many ? "summary" : "span", "label", many
      ? "Legal actions (" + step.legal.length + "): "
      : "Legal actions: ");
    legal.append(label);
    if (many && !PHONE.matches) legal.open = true;
    step.legal.forEach((option) => {
      const item = action(option);
      if (JSON.stringify(option) === JSON.stringify(step.action)) item.classList.add("chosen");
      legal.append(item);
    });
    return legal;
  }

  /* A fault at its step: who, what, why, and the answer that caused it. */
  function faultBox(f) {
    const box = el("div", "fault");
    box.id = "rv-fault";
    box.append(el("strong", "", "Fault of " + botName(f.bot) + ": " + f.kind), " – " + f.reason +
      ". The engine played its fallback for it here and for the rest of the match.");
    if (f.text) {
      const answer = el("p", "fault-answer");
      answer.append(el("span", "label", "Its answer: "), el("code", "", f.text));
      box.append(answer);
    }
    return box;
  }

  function duration(seconds) {
    if (seconds >= 0.1) return seconds.toFixed(3) + " s";
    if (seconds >= 0.001) return (seconds * 1000).toFixed(1) + " ms";
    return Math.round(seconds * 1e6) + " µs";
  }

  /* The move list: every step, clickable, with what each one ended below it. */
  function fillMoves() {
    const d = state.data, list = $("rv-moves");
    const after = new Map();
    (d.events || []).forEach((e) => after.set(e.step - 1, (after.get(e.step - 1) || []).concat([e.say])));
    const faulty = new Set(d.faults.map((f) => f.move));
    const items = d.steps.map((step, i) => {
      const item = el("li", faulty.has(i) ? "faulty" : "");
      const link = el("a", "");
      link.href = anchor(state.game, i);
      link.dataset.pos = String(i);
      link.append(el("span", "who", seatName(step.seat) + ": "), action(step.action));
      if (faulty.has(i)) link.append(el("span", "fault-mark", " fault"));
      item.append(link);
      (after.get(i) || []).forEach((parts) => item.append(...lines([parts], "event")));
      return item;
    });
    const end = el("li", "");
    const link = el("a", "");
    link.href = anchor(state.game, d.steps.length);
    link.dataset.pos = String(d.steps.length);
    link.textContent = "end of game";
    end.append(link);
    list.replaceChildren(...items, end);
    $("rv-moves-count").textContent = "(" + d.steps.length + ")";
  }

  function markMove() {
    const list = $("rv-moves");
    const old = list.querySelector("[aria-current]");
    if (old) old.removeAttribute("aria-current");
    const item = list.children[state.pos];
    if (!item) return;
    item.firstChild.setAttribute("aria-current", "step");
    if (list.scrollHeight > list.clientHeight) {
      const top = item.offsetTop - list.offsetTop;
      if (top < list.scrollTop || top > list.scrollTop + list.clientHeight - item.offsetHeight) {
        list.scrollTop = Math.max(0, top - list.clientHeight / 2);
      }
    }
  }

  function go(pos) {
    state.pos = Math.max(0, Math.min(pos, state.data.steps.length));
    show();
  }

  function goTo(target) {
    if (!target) return;
    const games = Number(root.dataset.games);
    if (target.game < 0 || target.game >= games) return;
    if (!state.data || target.game !== state.game) {
      state.game = target.game;
      load(target.pos);
    } else {
      go(target.pos);
    }
  }

  function nextDecision() {
    const seat = Number(state.seat);
    const steps = state.data.steps;
    for (let i = state.pos + 1; i < steps.length; i++) if (steps[i].seat === seat) return go(i);
    go(steps.length);
  }

  /* Play and pause: one step every 1/speed seconds until the end. */
  function play() {
    if (state.pos >= state.data.steps.length) go(0);
    const every = 1000 / Number($("rv-speed").value || 1);
    clearInterval(state.timer);
    state.timer = setInterval(() => go(state.pos + 1), every);
    const button = $("rv-play");
    button.textContent = "❚❚ Pause";
    button.setAttribute("aria-pressed", "true");
  }

  function stop() {
    if (state.timer === null) return;
    clearInterval(state.timer);
    state.timer = null;
    const button = $("rv-play");
    button.textContent = "▶ Play";
    button.setAttribute("aria-pressed", "false");
  }

  function toggle() { if (state.timer === null) play(); else stop(); }

  /* After a choice in a dropdown the keys step again: focus leaves the dropdown. */
  function chosen(apply) {
    return (e) => { apply(e.target.value); root.focus({ preventScroll: true }); };
  }

  $("rv-first").addEventListener("click", () => go(0));
  $("rv-prev").addEventListener("click", () => go(state.pos - 1));
  $("rv-next").addEventListener("click", () => go(state.pos + 1));
  $("rv-last").addEventListener("click", () => go(Infinity));
  $("rv-decision").addEventListener("click", nextDecision);
  $("rv-play").addEventListener("click", toggle);
  $("rv-scrub").addEventListener("input", (e) => { stop(); go(Number(e.target.value)); });
  $("rv-game").addEventListener("change", chosen((value) => { stop(); state.game = Number(value); load(0); }));
  $("rv-seat").addEventListener("change", chosen((value) => { state.seat = value; load(); }));
  $("rv-speed").addEventListener("change", chosen(() => { if (state.timer !== null) play(); }));
  $("rv-moves").addEventListener("click", (e) => {
    const link = e.target.closest("a[data-pos]");
    if (!link) return;
    e.preventDefault();
    stop();
    go(Number(link.dataset.pos));
  });
  window.addEventListener("hashchange", () => {
    const target = parseAnchor(window.location.hash);
    if (!target) return;
    stop();
    goTo(target);
    root.scrollIntoView({ block: "start" });
  });
  document.addEventListener("keydown", (e) => {
    if (!state.data || e.target.matches("input, select, textarea") || e.altKey || e.ctrlKey || e.metaKey) return;
    const keys = {
      ArrowRight: () => go(state.pos + 1), ArrowLeft: () => go(state.pos - 1),
      Home: () => go(0), End: () => go(Infinity),
      d: () => state.seat !== "all" && nextDecision(),
      p: toggle,
    };
    if (keys[e.key]) { e.preventDefault(); if (e.key !== "p") stop(); keys[e.key](); }
  });
  const start = parseAnchor(window.location.hash);
  if (start && start.game >= 0 && start.game < Number(root.dataset.games)) state.game = start.game;
  load(start ? start.pos : 0);
})();
