/* The replay viewer: steps through every action of a finished match, forward and back,
   as one seat saw it (its observation, legal actions, answer and time) or with every
   card shown. Frames come from the server (?game=G&seat=S), re-simulated by the engine. */
"use strict";
(function () {
  const { el, card, row, backs, action } = window.Cards;
  const root = document.getElementById("viewer");
  if (!root) return;
  const names = root.dataset.names.split("|");
  const $ = (id) => document.getElementById(id);
  const state = { data: null, pos: 0, game: 0, seat: "all" };

  function seatName(seat) {
    const bot = state.data.seating[seat];
    return "seat " + seat + " · " + (names[bot] !== undefined ? names[bot] : "bot " + bot);
  }

  async function load() {
    const url = root.dataset.frames + "?game=" + state.game + "&seat=" + state.seat;
    $("rv-counter").textContent = "loading…";
    const answer = await fetch(url);
    const data = await answer.json();
    if (!answer.ok) {
      $("rv-step").textContent = data.error || "the replay could not be loaded";
      return;
    }
    const keep = state.data && state.data.index === data.index ? state.pos : 0;
    state.data = data;
    state.pos = Math.min(keep, data.steps.length);
    fillSeats();
    show();
  }

  function fillSeats() {
    const select = $("rv-seat");
    const chosen = state.seat;
    select.replaceChildren(new Option("everyone (all cards)", "all"));
    for (let seat = 0; seat < state.data.players; seat++) {
      select.append(new Option(seatName(seat), String(seat)));
    }
    select.value = chosen;
  }

  function view() {
    const d = state.data;
    return state.pos < d.steps.length ? d.steps[state.pos].view : d.final;
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
    showStep();
    const table = $("rv-table");
    table.replaceChildren();
    const render = RENDER[d.renderer] || renderGeneric;
    render(table, view(), d, state.pos === total);
    $("rv-raw").textContent = JSON.stringify(view(), null, 1);
  }

  function showStep() {
    const d = state.data, box = $("rv-step");
    box.replaceChildren();
    if (state.pos === d.steps.length) {
      const line = el("p", "decision");
      line.append(el("strong", "", "Game over. "), "Scores: " +
        d.result.scores.map((s, i) => seatName(i) + " " + s).join(", ") + ". All cards are shown.");
      box.append(line);
      return;
    }
    const step = d.steps[state.pos];
    const line = el("p", "decision");
    line.append(el("strong", "", seatName(step.seat)), " answered ", action(step.action));
    line.append(el("span", "time", step.time === null
      ? " · retired earlier: the engine played its fallback"
      : " · in " + duration(step.time)));
    box.append(line);
    if (step.legal) {
      const legal = el("div", "legal");
      legal.append(el("span", "label", "Legal actions: "));
      step.legal.forEach((option) => {
        const item = action(option);
        if (JSON.stringify(option) === JSON.stringify(step.action)) item.classList.add("chosen");
        legal.append(item);
      });
      box.append(legal);
    } else if (state.seat !== "all") {
      box.append(el("p", "note", "Not this seat's decision: its view while seat " + step.seat + " acts."));
    }
    d.faults.filter((f) => f.move === state.pos).forEach((f) => {
      box.append(el("p", "fault", "Fault of bot " + f.bot + ": " + f.kind + " – " + f.reason));
    });
  }

  function duration(seconds) {
    if (seconds >= 0.1) return seconds.toFixed(3) + " s";
    if (seconds >= 0.001) return (seconds * 1000).toFixed(1) + " ms";
    return Math.round(seconds * 1e6) + " µs";
  }

  function go(pos) {
    state.pos = Math.max(0, Math.min(pos, state.data.steps.length));
    show();
  }

  function nextDecision() {
    const seat = Number(state.seat);
    const steps = state.data.steps;
    for (let i = state.pos + 1; i < steps.length; i++) if (steps[i].seat === seat) return go(i);
    go(steps.length);
  }

  /* Game renderers: (container, observation, frames, over). */

  function seatBox(d, seat, v, extra) {
    const box = el("div", "seat-box");
    if (v.to_act === seat || (Array.isArray(v.to_act) && v.to_act.includes(seat))) box.classList.add("acting");
    if (String(seat) === state.seat) box.classList.add("viewer-seat");
    box.append(el("h3", "", seatName(seat)));
    if (extra) box.append(extra);
    return box;
  }

  function line(label, value) {
    const p = el("p", "line");
    p.append(el("span", "label", label + " "), value instanceof Node ? value : String(value));
    return p;
  }

  function renderOceans(table, v, d, over) {
    const grid = el("div", "seats two");
    const past = v.past_hands || [];
    const empty = v.rows.every((r) => !r.length) && past.length;
    const rows = empty ? past[past.length - 1].rows : v.rows;
    for (let seat = 0; seat < 2; seat++) {
      const box = seatBox(d, seat, v);
      box.append(line("hands won", v.wins[seat] + " of " + v.target));
      box.append(line("deck", v.deck_sizes[seat] + " cards left"));
      if (empty) box.append(el("p", "label", "the last hand:"));
      box.append(row(rows[seat], "big"));
      if (!empty && v.row_hands && v.row_hands[seat]) box.append(el("p", "hand-name", v.row_hands[seat].name));
      if (over && d.revealed) {
        const deck = el("details", "deck-order");
        deck.append(el("summary", "", "the whole deck, in the order it was shuffled"), row(d.revealed.decks[seat], "small"));
        box.append(deck);
      }
      grid.append(box);
    }
    table.append(el("p", "centre", "Hand " + v.hand + (v.over ? " · game over" : "") +
      (v.may_concede === false && !v.over ? " · conceding not allowed" : "")));
    table.append(grid);
    if (v.past_hands && v.past_hands.length) {
      const list = el("ol", "past");
      v.past_hands.forEach((h) => {
        const item = el("li", "");
        item.append("seat " + h.winner + " won (" + h.how + "): ", row(h.rows[0], "small"), " vs ", row(h.rows[1], "small"));
        list.append(item);
      });
      const more = el("details", "");
      more.append(el("summary", "", "Earlier hands (" + v.past_hands.length + ")"), list);
      table.append(more);
    }
  }

  function renderBigTwo(table, v, d, over) {
    const grid = el("div", "seats");
    const dealt = over && d.revealed ? d.revealed.deals[d.revealed.deals.length - 1] : null;
    for (let seat = 0; seat < d.players; seat++) {
      const box = seatBox(d, seat, v);
      box.append(line("cards", v.counts[seat]), line("score", v.scores[seat]));
      let hand = null;
      if (v.private) hand = v.private[seat].hand;
      else if (v.seat === seat) hand = v.hand;
      else if (dealt) hand = dealt.left[seat];
      box.append(hand ? row(hand) : backs(v.counts[seat], v.counts[seat] + " cards in seat " + seat + "'s hand"));
      grid.append(box);
    }
    const centre = el("div", "centre trick");
    if (v.trick) {
      centre.append(el("span", "label", "Trick (" + v.trick.kind + ", seat " + v.trick.seat + "): "), row(v.trick.cards, "big"));
    } else {
      centre.append(el("span", "", "Seat " + v.leader + " leads"));
      if (v.must_contain) centre.append(el("span", "", " and must play "), card(v.must_contain));
    }
    table.append(centre, grid);
    const recent = el("ol", "plays");
    (v.plays || []).slice(-8).forEach(([seat, play]) => {
      const item = el("li", "");
      item.append("seat " + seat + ": ", action(play));
      recent.append(item);
    });
    table.append(line("Deal", (v.deal + 1) + " of " + v.deals), el("h3", "", "Last plays"), recent);
  }

  function renderFifteen(table, v, d, over) {
    const last = over && d.revealed ? d.revealed.deals[d.revealed.deals.length - 1] : null;
    const centre = el("div", "centre");
    centre.append(el("strong", "", "Pot " + v.pot), " · " + v.phase + (v.asked ? " (" + v.asked + ")" : "") +
      " · to call " + v.to_call + " · stock " + v.stock + " · hand " + (v.hand + 1) + " of " + v.hands + " · dealer seat " + v.dealer);
    table.append(centre);
    const grid = el("div", "seats");
    for (let seat = 0; seat < d.players; seat++) {
      const box = seatBox(d, seat, v);
      const flags = [v.folded[seat] ? "folded" : "", v.frozen[seat] ? "frozen" : ""].filter(Boolean).join(", ");
      box.append(line("chips", v.chips[seat]), line("in the pot", v.bets[seat] + (flags ? " · " + flags : "")));
      let hidden = null;
      if (last) hidden = last.cards[seat].filter((c) => !v.exposed[seat].includes(c));
      else if (v.private) hidden = v.private[seat].hidden;
      else if (v.seat === seat) hidden = v.hidden;
      const count = v.exposed[seat].length ? 2 : 3;
      const hand = el("div", "hand");
      hand.append(hidden ? row(hidden, "face-down-shown") : backs(count), row(v.exposed[seat]));
      box.append(hand);
      grid.append(box);
    }
    table.append(grid);
    if (v.last_hand) {
      const lh = v.last_hand;
      const text = "Previous hand: pot " + lh.pot + ", net " + lh.net.join(" / ") +
        (Object.keys(lh.declarations || {}).length ? ", declared " + JSON.stringify(lh.declarations) : "");
      table.append(el("p", "note", text));
    }
  }

  /* The generic renderer: any game readably, from its observation and its private keys. */

  const CARD_TEXT = /^([2-9TJQKA][cdhsx]|JK)$/;

  function isCards(value) {
    return Array.isArray(value) && value.length > 0 &&
      value.every((c) => typeof c === "string" && CARD_TEXT.test(c));
  }

  function shown(value) {
    if (typeof value === "string" && CARD_TEXT.test(value)) return row([value]);
    if (isCards(value)) return row(value);
    if (value === null || typeof value !== "object") return String(value);
    return el("code", "", JSON.stringify(value));
  }

  function renderGeneric(table, v, d) {
    const secret = d.private_keys || [];
    const grid = el("div", "seats");
    for (let seat = 0; seat < d.players; seat++) {
      const box = seatBox(d, seat, v);
      const own = v.private ? v.private[seat] : (v.seat === seat ? v : null);
      secret.forEach((key) => {
        const value = own ? own[key] : null;
        box.append(line(key, value === null || value === undefined ? backs(1, "hidden from this seat") : shown(value)));
      });
      grid.append(box);
    }
    table.append(grid);
    const facts = el("div", "public-facts");
    Object.keys(v).filter((key) => key !== "private" && !secret.includes(key))
      .forEach((key) => facts.append(line(key, shown(v[key]))));
    table.append(facts);
  }

  const RENDER = { oceans11: renderOceans, bigtwo: renderBigTwo, fifteen35: renderFifteen };

  $("rv-first").addEventListener("click", () => go(0));
  $("rv-prev").addEventListener("click", () => go(state.pos - 1));
  $("rv-next").addEventListener("click", () => go(state.pos + 1));
  $("rv-last").addEventListener("click", () => go(Infinity));
  $("rv-decision").addEventListener("click", nextDecision);
  $("rv-game").addEventListener("change", (e) => { state.game = Number(e.target.value); load(); });
  $("rv-seat").addEventListener("change", (e) => { state.seat = e.target.value; load(); });
  document.addEventListener("keydown", (e) => {
    if (!state.data || e.target.matches("input, select, textarea") || e.altKey || e.ctrlKey || e.metaKey) return;
    const keys = {
      ArrowRight: () => go(state.pos + 1), ArrowLeft: () => go(state.pos - 1),
      Home: () => go(0), End: () => go(Infinity),
      d: () => state.seat !== "all" && nextDecision(),
    };
    if (keys[e.key]) { e.preventDefault(); keys[e.key](); }
  });
  load();
})();
