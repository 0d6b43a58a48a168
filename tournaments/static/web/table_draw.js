/* A game's table drawn from one observation, as the replay draws it: each game's own
   renderer (window.ReplayRenderers[name], its package's replay.js) or the generic one.
   Shared by the replay viewer, a person's table and a match's live view, so a table looks
   the same wherever it is shown. A renderer gets (container, observation, frames, over,
   kit); ``frames`` needs only players, names, renderer, private_keys and revealed. */
"use strict";
window.TableDraw = (function () {
  const { el, card, row, backs, action } = window.Cards;

  /* The drawing helpers a renderer uses; ``viewer``: the seat whose view it is ("all": none). */
  function kit(d, viewer) {
    const seatName = (seat) => {
      const names = d.names || [];
      return names[seat] !== undefined ? names[seat] : "seat " + (seat + 1);
    };
    const seatBox = (frames, seat, v, extra) => {
      const box = el("div", "seat-box");
      if (v.to_act === seat || (Array.isArray(v.to_act) && v.to_act.includes(seat))) box.classList.add("acting");
      if (String(seat) === String(viewer)) box.classList.add("viewer-seat");
      box.append(el("h3", "", seatName(seat)));
      if (extra) box.append(extra);
      return box;
    };
    return { el, card, row, backs, action, seatBox, line, seatName };
  }

  function line(label, value) {
    const p = el("p", "line");
    p.append(el("span", "label", label + " "), value instanceof Node ? value : String(value));
    return p;
  }

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

  /* The generic renderer: any game readably, from its observation and its private keys. */
  function renderGeneric(table, v, d, over, k) {
    const secret = d.private_keys || [];
    const grid = el("div", "seats");
    for (let seat = 0; seat < d.players; seat++) {
      const box = k.seatBox(d, seat, v);
      const own = v.private ? v.private[seat] : (v.seat === seat ? v : null);
      secret.forEach((key) => {
        const value = own ? own[key] : null;
        box.append(line(key.replace(/_/g, " "), value === null || value === undefined ? backs(1, "hidden from this seat") : shown(value)));
      });
      grid.append(box);
    }
    table.append(grid);
    const facts = el("div", "public-facts");
    Object.keys(v).filter((key) => key !== "private" && key !== "seat" && !secret.includes(key))
      .forEach((key) => facts.append(line(key.replace(/_/g, " "), shown(v[key]))));
    table.append(facts);
  }

  /* Draw ``v`` into ``table`` (emptied first). A game's renderer that cannot draw a
     partial view (a live view holds only the public keys) leaves the generic one to it. */
  function draw(table, v, d, over, viewer) {
    const k = kit(d, viewer);
    const render = (window.ReplayRenderers || {})[d.renderer] || renderGeneric;
    table.replaceChildren();
    try {
      render(table, v, d, over, k);
    } catch (error) {
      table.replaceChildren();
      renderGeneric(table, v, d, over, k);
    }
  }

  return { draw, kit, renderGeneric };
})();
