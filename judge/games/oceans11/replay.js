/* The replay renderer of Oceans 11: both rows as big cards, hands won and deck sizes, the earlier hands.
   Loaded by the match page before replay.js, which calls it with each frame:
   (container, the frame's observation, the frames, whether the game is over, the kit of
   shared drawing helpers). */
"use strict";
(function () {
  window.ReplayRenderers = window.ReplayRenderers || {};
  window.ReplayRenderers.oceans11 = function (table, v, d, over, kit) {
    const { el, card, row, backs, action, seatBox, line, seatName } = kit;
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
    if (past.length) {
      const list = el("ol", "past");
      past.forEach((h) => {
        const item = el("li", "");
        const who = h.winner === null ? "nobody" : seatName(h.winner);
        item.append(who + " won (" + h.how + "): ", row(h.rows[0], "small"), " vs ", row(h.rows[1], "small"));
        list.append(item);
      });
      const more = el("details", "");
      more.append(el("summary", "", "Earlier hands (" + past.length + ")"), list);
      table.append(more);
    }
  };
})();
