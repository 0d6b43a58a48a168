/* A running match, live: polls the public feed (what every seat sees alike, a few
   seconds behind), draws the table as the replay does (table_draw.js, the game's own
   renderer; hands face down) and lists each move with its action in words and cards, what
   it ended (a deal, a hand) as the replay says it, and at each game's end how it ended.
   Built from DOM nodes and textContent only, never markup. */
"use strict";
(function () {
  const root = document.getElementById("live");
  if (!root) return;
  const { el, action, tell } = window.Cards;
  const drawing = JSON.parse(document.getElementById("live-drawing").textContent);
  const every = 1000;
  const counted = {};  // moves seen per game (the feed numbers them across the match)
  let after = 0;

  function names(game) { return drawing.names[Math.min(game, drawing.names.length - 1)] || []; }
  function seatName(game, seat) { return names(game)[seat] || "seat " + (seat + 1); }

  function show(event) {
    const item = el("li", "");
    counted[event.game] = (counted[event.game] || 0) + 1;
    item.append(el("span", "who", "Game " + (event.game + 1) + ", move " + counted[event.game] + ": "));
    if (event.seat === null || event.seat === undefined) {
      item.append("a player chose in secret (shown at the end of the hand)");
    } else {
      item.append(el("span", "who", seatName(event.game, event.seat) + ": "));
      if ("action" in event) item.append(action(event.action));
    }
    tell(item, event, (seat) => seatName(event.game, seat));
    document.getElementById("live-moves").append(item);
    if (!event.view) return;
    const frames = { players: drawing.players, names: names(event.game), renderer: drawing.renderer,
      private_keys: drawing.private_keys, revealed: null };
    window.TableDraw.draw(document.getElementById("live-table"), event.view, frames, false, "all");
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
