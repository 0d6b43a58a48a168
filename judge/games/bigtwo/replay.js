/* The replay renderer of Big Two: each hand (or its card backs), the trick in the centre, the last plays.
   Loaded by the match page before replay.js, which calls it with each frame:
   (container, the frame's observation, the frames, whether the game is over, the kit of
   shared drawing helpers). */
"use strict";
(function () {
  window.ReplayRenderers = window.ReplayRenderers || {};
  window.ReplayRenderers.bigtwo = function (table, v, d, over, kit) {
    const { el, card, row, backs, action, seatBox, line, seatName } = kit;
    const grid = el("div", "seats");
    const dealt = over && d.revealed ? d.revealed.deals[d.revealed.deals.length - 1] : null;
    for (let seat = 0; seat < d.players; seat++) {
      const box = seatBox(d, seat, v);
      box.append(line("cards", v.counts[seat]), line("score", v.scores[seat]));
      let hand = null;
      if (v.private) hand = v.private[seat].hand;
      else if (v.seat === seat) hand = v.hand;
      else if (dealt) hand = dealt.left[seat];
      box.append(hand ? row(hand) : backs(v.counts[seat], v.counts[seat] + " cards in " + seatName(seat) + "'s hand"));
      grid.append(box);
    }
    const centre = el("div", "centre trick");
    if (v.trick) {
      centre.append(el("span", "label", "Trick (" + v.trick.kind + ", " + seatName(v.trick.seat) + "): "), row(v.trick.cards, "big"));
    } else {
      centre.append(el("span", "", seatName(v.leader) + " leads"));
      if (v.must_contain) centre.append(el("span", "", " and must play "), card(v.must_contain));
    }
    table.append(centre, grid);
    const recent = el("ol", "plays");
    (v.plays || []).slice(-8).forEach(([seat, play]) => {
      const item = el("li", "");
      item.append(seatName(seat) + ": ", action(play));
      recent.append(item);
    });
    table.append(line("Deal", (v.deal + 1) + " of " + v.deals),
      el("h3", "", "Last plays (every play is in the move list)"), recent);
  };
})();
