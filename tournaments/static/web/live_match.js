/* A running match, live: polls the public feed (what every seat sees alike, a few
   seconds behind) and shows each move as it arrives; text only, never markup. */
"use strict";
(function () {
  const root = document.getElementById("live");
  if (!root) return;
  const every = 1000;
  let after = 0;
  function text(value) {
    if (Array.isArray(value)) return value.map(text).join(" ");
    if (value && typeof value === "object") return Object.entries(value).map(([k, v]) => k + ": " + text(v)).join(", ");
    return value === null || value === undefined ? "—" : String(value);
  }
  function show(event) {
    const item = document.createElement("li");
    item.textContent = "Game " + (event.game + 1) + ", move " + (event.move + 1) + ": seat " + (event.seat + 1) + " acted.";
    document.getElementById("live-moves").append(item);
    if (!event.view) return;
    const list = document.getElementById("live-view");
    list.replaceChildren();
    for (const [key, value] of Object.entries(event.view)) {
      const term = document.createElement("dt");
      term.textContent = key.replace(/_/g, " ");
      const detail = document.createElement("dd");
      detail.textContent = text(value);
      list.append(term, detail);
    }
  }
  async function poll() {
    let running = true;
    try {
      const response = await fetch(root.dataset.feed + "?after=" + after);
      if (response.ok) {
        const feed = await response.json();
        feed.events.forEach(show);
        after = feed.next;
        document.getElementById("live-count").textContent = after + " move" + (after === 1 ? "" : "s") + " so far.";
        running = feed.status === "queued" || feed.status === "running";
      }
    } catch (error) {
      /* retried at the next tick */
    }
    if (running) setTimeout(poll, every);
  }
  poll();
})();
