/* The replay renderer of High Card (the tests' toy game): each seat's card, or its back
   when that seat's card is hidden from the viewer, then the public facts. */
"use strict";
(function () {
  window.ReplayRenderers = window.ReplayRenderers || {};
  window.ReplayRenderers.highcard = function (table, v, d, over, kit) {
    const { el, row, backs, seatBox, line } = kit;
    const grid = el("div", "seats two");
    for (let seat = 0; seat < d.players; seat++) {
      const own = v.private ? v.private[seat] : (v.seat === seat ? v : null);
      const box = seatBox(d, seat, v);
      box.append(own && own.card ? row([own.card], "big") : backs(1, "hidden from this seat"));
      box.append(line("points", v.scores[seat]));
      grid.append(box);
    }
    table.append(grid);
    const facts = el("div", "public-facts");
    facts.append(line("round", (v.round + 1) + " of " + v.rounds + " rounds"));
    table.append(facts);
  };
})();
