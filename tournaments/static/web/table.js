/* A person's table: polls the seat's protocol lines and the public feed, shows the
   seat's view and the legal actions as buttons, and posts the chosen action's index.
   Everything is written with textContent: nothing from the server becomes markup. */
"use strict";
(function () {
  const root = document.getElementById("table");
  if (!root) return;
  const every = 700;
  const byId = (id) => document.getElementById(id);
  let lines = 0, events = 0, question = null, deadline = 0, over = false;

  function text(value) {
    if (Array.isArray(value)) return value.map(text).join(value.every((v) => !Array.isArray(v)) ? " " : " · ");
    if (value && typeof value === "object") return Object.entries(value).map(([k, v]) => k + ": " + text(v)).join(", ");
    return value === null || value === undefined ? "—" : String(value);
  }
  function fill(list, view) {
    list.replaceChildren();
    for (const [key, value] of Object.entries(view || {})) {
      const term = document.createElement("dt");
      term.textContent = key.replace(/_/g, " ");
      const detail = document.createElement("dd");
      detail.textContent = text(value);
      list.append(term, detail);
    }
  }
  function ask(message) {
    question = message;
    deadline = Date.now() + 1000 * (message.time.move_s + message.time.bank_s);
    fill(byId("table-view"), message.observation);
    byId("table-prompt").textContent = "Your turn: choose one of " + message.legal.length + " actions.";
    const box = byId("table-actions");
    box.replaceChildren();
    message.legal.forEach((action, index) => {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "table-action";
      button.dataset.index = String(index);
      button.textContent = (index < 9 ? index + 1 + ". " : "") + text(action);
      button.addEventListener("click", () => answer(index));
      box.append(button);
    });
    const first = box.querySelector("button");
    if (first) first.focus();
  }
  function closeQuestion(prompt) {
    question = null;
    byId("table-actions").replaceChildren();
    byId("table-prompt").textContent = prompt;
  }
  async function answer(index) {
    if (!question) return;
    const asked = question;
    closeQuestion("Sent; waiting for the others…");
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
  function take(message) {
    if (message.type === "act") ask(message);
    else if (message.type === "game_over") closeQuestion("Game " + (message.game + 1) + " is over; scores " + text(message.scores) + ".");
    else if (message.type === "match_over") closeQuestion("The match is over; places " + text(message.places) + ".");
  }
  function show(event) {
    const item = document.createElement("li");
    item.textContent = "Game " + (event.game + 1) + ", move " + (event.move + 1) + ": seat " + (event.seat + 1) + " acted.";
    byId("table-moves").append(item);
    if (event.view) fill(byId("table-public"), event.view);
  }
  async function poll() {
    try {
      const url = root.dataset.state + "?lines=" + lines + "&events=" + events;
      const response = await fetch(url, { headers: { "X-Requested-With": "fetch" } });
      if (response.ok) {
        const state = await response.json();
        state.lines.forEach(take);
        lines = state.next_lines;
        state.events.forEach(show);
        events = state.next_events;
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
  document.addEventListener("keydown", (event) => {
    if (!question || event.altKey || event.ctrlKey || event.metaKey) return;
    const number = Number(event.key);
    if (number >= 1 && number <= 9 && number <= question.legal.length) answer(number - 1);
  });
  poll();
  tick();
})();
