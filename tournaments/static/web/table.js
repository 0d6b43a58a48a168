/* A person's table: polls the seat's protocol lines and the public feed, draws the table
   as the replay does (table_draw.js: the game's own renderer, seats named and numbered
   from 1), lists each move with its action in words and cards (and what it ended, as the
   replay says it), offers the legal actions
   as buttons and posts the chosen one's index. Any number of actions is reachable from the
   keyboard: Tab, or type a number or words to find one and Enter. Everything is built
   with DOM nodes and textContent: nothing from the server becomes markup. */
"use strict";
(function () {
  const root = document.getElementById("table");
  if (!root) return;
  const { el, action, tell } = window.Cards;
  const every = 700;
  const byId = (id) => document.getElementById(id);
  const drawing = JSON.parse(byId("table-drawing").textContent);
  const mySeat = Number(root.dataset.seat);
  const find = byId("table-find");
  let lines = 0, events = 0, question = null, deadline = 0, over = false;
  let own = {}, shown = null, game = 0, matches = [], picked = 0;
  const counted = {};  // moves seen per game (the feed numbers them across the match)

  function names(index) { return drawing.names[Math.min(index, drawing.names.length - 1)] || []; }
  function seatName(index, seat) { return names(index)[seat] || "seat " + (seat + 1); }
  function frames(index) {
    return { players: drawing.players, names: names(index), renderer: drawing.renderer,
      private_keys: drawing.private_keys, revealed: null };
  }

  /* The table: the latest public view with the seat's own private cards (from its last
     question) laid over it. */
  function redraw() {
    if (!shown) return;
    window.TableDraw.draw(byId("table-cards"), Object.assign({}, shown, own), frames(game), false, mySeat);
  }

  /* Words for an action, for finding it by typing: its text and its cards' names. */
  function words(value) {
    const parts = Array.isArray(value) ? value : [String(value)];
    const named = action(value).querySelectorAll("[aria-label]");
    return (parts.join(" ") + " " + Array.from(named, (n) => n.getAttribute("aria-label")).join(" ")).toLowerCase();
  }

  function ask(message) {
    question = message;
    game = message.game;
    deadline = Date.now() + 1000 * (message.time.move_s + message.time.bank_s);
    own = {};
    drawing.private_keys.forEach((key) => { if (key in message.observation) own[key] = message.observation[key]; });
    own.seat = mySeat;
    shown = Object.assign({}, shown || {}, message.observation);
    redraw();
    byId("table-prompt").textContent = "Your turn: choose one of " + message.legal.length + " actions.";
    const box = byId("table-actions");
    box.replaceChildren();
    message.legal.forEach((value, index) => {
      const button = el("button", "table-action");
      button.type = "button";
      button.dataset.index = String(index);
      button.dataset.find = (index + 1) + " " + words(value);
      button.append(el("span", "number", (index + 1) + "."), " ", action(value));
      button.addEventListener("click", () => answer(index));
      box.append(button);
    });
    find.value = "";
    byId("table-find-box").hidden = false;
    filter();
    const first = box.querySelector("button");
    if (first) first.focus();
  }

  /* Type to find: a number picks that action (and those it starts); words pick the actions
     holding every one of them. Enter plays the picked one; ↓ ↑ move the pick. */
  function filter() {
    if (!question) return;
    const query = find.value.trim().toLowerCase();
    const buttons = Array.from(byId("table-actions").children);
    if (/^\d+$/.test(query)) {
      matches = buttons.filter((b) => String(Number(b.dataset.index) + 1).startsWith(query));
      matches.sort((a, b) => (String(Number(b.dataset.index) + 1) === query) - (String(Number(a.dataset.index) + 1) === query));
    } else {
      const tokens = query.split(/\s+/).filter(Boolean);
      matches = buttons.filter((b) => tokens.every((t) => b.dataset.find.includes(t)));
    }
    buttons.forEach((b) => { b.hidden = query !== "" && !matches.includes(b); b.classList.remove("picked"); });
    picked = 0;
    mark();
  }

  function mark() {
    const said = byId("table-find-said");
    byId("table-actions").querySelectorAll(".picked").forEach((b) => b.classList.remove("picked"));
    if (!find.value.trim()) { said.textContent = ""; return; }
    if (!matches.length) { said.textContent = "No action matches “" + find.value.trim() + "”."; return; }
    const chosen = matches[picked];
    chosen.classList.add("picked");
    said.textContent = matches.length + " action" + (matches.length === 1 ? "" : "s") + " match; Enter plays " +
      chosen.textContent.replace(/\s+/g, " ").trim() + describe(chosen) + ".";
  }

  function describe(button) {
    const named = Array.from(button.querySelectorAll("[aria-label]"), (n) => n.getAttribute("aria-label"));
    return named.length ? " (" + named.join(", ") + ")" : "";
  }

  find.addEventListener("input", filter);
  find.addEventListener("keydown", (event) => {
    if (!question) return;
    if (event.key === "Enter") {
      event.preventDefault();
      if (matches.length && find.value.trim()) answer(Number(matches[picked].dataset.index));
    } else if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      if (!matches.length) return;
      picked = (picked + (event.key === "ArrowDown" ? 1 : matches.length - 1)) % matches.length;
      mark();
    } else if (event.key === "Escape") {
      find.value = "";
      filter();
    }
  });

  function closeQuestion(prompt) {
    question = null;
    byId("table-actions").replaceChildren();
    byId("table-find-box").hidden = true;
    byId("table-find-said").textContent = "";
    byId("table-prompt").textContent = prompt;
  }

  /* The cards an action names leave the seat's own private lists until its next question
     brings them afresh (a played card leaves the hand, an exposed one the hidden cards). */
  function spend(value) {
    const cards = Array.isArray(value) ? value.map(String) : String(value).split(" ").slice(1);
    Object.keys(own).forEach((key) => {
      if (Array.isArray(own[key])) own[key] = own[key].filter((c) => !cards.includes(c));
    });
  }

  async function answer(index) {
    if (!question) return;
    const asked = question;
    closeQuestion("Sent; waiting for the others…");
    spend(asked.legal[index]);
    redraw();
    const response = await fetch(root.dataset.answer, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-CSRFToken": byId("table-csrf").value },
      body: JSON.stringify({ game: asked.game, move: asked.move, action: index }),
    });
    if (!response.ok) {
      const body = await response.json().catch(() => ({}));
      byId("table-prompt").textContent = "Not taken: " + (body.error || response.status);
    }
  }

  async function leave() {
    const left = window.confirm("Leave the table? The engine plays your seat to the end of the match, and you cannot come back to it.");
    if (!left) return;
    const button = byId("table-leave");
    button.disabled = true;
    closeQuestion("Leaving; the engine plays your seat to the end…");
    const response = await fetch(root.dataset.leave, {
      method: "POST",
      headers: { "X-CSRFToken": byId("table-csrf").value },
    });
    if (!response.ok) {
      const body = await response.json().catch(() => ({}));
      byId("table-prompt").textContent = "Not left: " + (body.error || response.status);
      button.disabled = false;
    }
  }
  byId("table-leave").addEventListener("click", leave);

  function scoreText(index, scores) {
    return scores.map((score, seat) => seatName(index, seat) + " " + score).join(", ");
  }

  function note(text) {
    byId("table-moves").append(el("li", "event", text));
  }

  function take(message) {
    if (message.type === "act") ask(message);
    else if (message.type === "game_over") {
      const said = "Game " + (message.game + 1) + " is over. Scores: " + scoreText(message.game, message.scores) + ".";
      closeQuestion(said);
      note(said);
    } else if (message.type === "match_over") closeQuestion("The match is over.");
  }

  /* One move of the table: who did what, in words and cards (a secret choice: only that
     one was made). */
  function show(event) {
    const item = el("li", "");
    counted[event.game] = (counted[event.game] || 0) + 1;
    item.append(el("span", "who", "Game " + (event.game + 1) + ", move " + counted[event.game] + ": "));
    if (event.seat === null || event.seat === undefined) {
      item.append("a player chose in secret (shown at the end of the hand)");
    } else {
      item.append(el("span", "who", seatName(event.game, event.seat) + ": "));
      item.append("action" in event ? action(event.action) : "");
    }
    tell(item, event, (seat) => seatName(event.game, seat));
    byId("table-moves").append(item);
    if (event.view) {
      if (event.game !== game) { own = {}; game = event.game; }
      shown = event.view;
      redraw();
    }
  }

  async function poll() {
    try {
      const url = root.dataset.state + "?lines=" + lines + "&events=" + events;
      const response = await fetch(url, { headers: { "X-Requested-With": "fetch" } });
      if (response.ok) {
        const state = await response.json();
        state.events.forEach(show);
        events = state.next_events;
        state.lines.forEach(take);
        lines = state.next_lines;
        byId("table-status").textContent = state.status;
        if (state.status === "done" || state.status === "failed" || state.status === "cancelled") over = true;
      }
    } catch (error) {
      /* retried at the next tick */
    }
    if (over) {
      const cancelled = byId("table-status").textContent === "cancelled";
      closeQuestion(cancelled ? "The table was cancelled before the match began." : "The match is over.");
      byId("table-leave").disabled = true;
      byId("table-done").hidden = false;
    } else setTimeout(poll, every);
  }

  function tick() {
    byId("table-clock").textContent = question ? "Time left: " + Math.max(0, Math.ceil((deadline - Date.now()) / 1000)) + " s" : "";
    if (!over) setTimeout(tick, 1000);
  }

  /* A digit or letter typed anywhere but a field starts the search for an action. */
  document.addEventListener("keydown", (event) => {
    if (!question || event.altKey || event.ctrlKey || event.metaKey || event.target === find) return;
    if (event.target.matches("input, select, textarea")) return;
    if (event.key.length === 1 && /[\p{L}\p{N}]/u.test(event.key)) {
      event.preventDefault();
      find.focus();
      find.value += event.key;
      filter();
    }
  });
  poll();
  tick();
})();
