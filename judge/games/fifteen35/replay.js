/* The replay renderer of Fifteen Thirty-Five: the pot and phase, each seat's chips, face-down and exposed cards.
   Loaded by the match page before replay.js, which calls it with each frame:
   (container, the frame's observation, the frames, whether the game is over, the kit of
   shared drawing helpers). */
"use strict";
(function () {
  window.ReplayRenderers = window.ReplayRenderers || {};
  window.ReplayRenderers.fifteen35 = function (table, v, d, over, kit) {
    const { el, card, row, backs, action, seatBox, line, seatName } = kit;
    const last = over && d.revealed ? d.revealed.deals[d.revealed.deals.length - 1] : null;
    const centre = el("div", "centre");
    centre.append(el("strong", "", "Pot " + v.pot), " · " + v.phase + (v.asked ? " (" + v.asked + ")" : "") +
      " · to call " + v.to_call + " · stock " + v.stock + " · hand " + (v.hand + 1) + " of " + v.hands +
      " · dealer " + seatName(v.dealer));
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
      const declared = Object.entries(lh.declarations || {}).map(([s, what]) => seatName(Number(s)) + ": " + what);
      const text = "Previous hand: pot " + lh.pot + ", net " +
        lh.net.map((n, s) => seatName(s) + ": " + n).join(", ") +
        (declared.length ? "; declared: " + declared.join(", ") : "");
      table.append(el("p", "note", text));
    }
  };
})();
