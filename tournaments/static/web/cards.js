/* Playing cards as DOM elements: rank and suit at a glance, one colour per suit. */
"use strict";
window.Cards = (function () {
  const SUITS = { s: ["♠", "spades"], h: ["♥", "hearts"], d: ["♦", "diamonds"], c: ["♣", "clubs"], x: ["★", "stars"] };
  const RANKS = { T: "10", J: "J", Q: "Q", K: "K", A: "A" };

  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function card(text) {
    if (text === "JK") {
      const joker = el("span", "card joker", "");
      joker.setAttribute("role", "img");
      joker.setAttribute("aria-label", "joker");
      joker.append(el("span", "rank", "JK"), el("span", "suit", "✪"));
      return joker;
    }
    const rank = text.slice(0, -1), suit = text.slice(-1);
    const [symbol, name] = SUITS[suit] || ["?", "unknown suit"];
    const shown = RANKS[rank] || rank;
    const node = el("span", "card suit-" + suit, "");
    node.setAttribute("role", "img");
    node.setAttribute("aria-label", shown + " of " + name);
    node.title = text;
    node.append(el("span", "rank", shown), el("span", "suit", symbol));
    return node;
  }

  function back() {
    const node = el("span", "card back", "");
    node.setAttribute("aria-hidden", "true");
    return node;
  }

  function row(cards, cls) {
    const box = el("span", "cards " + (cls || ""));
    (cards || []).forEach((c) => box.append(card(c)));
    return box;
  }

  function backs(count, label) {
    const box = el("span", "cards hidden-cards");
    box.setAttribute("role", "img");
    box.setAttribute("aria-label", label || count + " hidden cards");
    for (let i = 0; i < count; i++) box.append(back());
    return box;
  }

  /* An action: a string ("deal", "raise", "expose 7h") or a list of cards (a play of several cards). */
  function action(value) {
    if (Array.isArray(value)) return row(value, "play");
    const text = String(value);
    const match = /^(\w+) ((?:[2-9TJQKA][cdhsx]|JK))$/.exec(text);
    if (match) {
      const box = el("span", "action");
      box.append(el("span", "", match[1] + " "), card(match[2]));
      return box;
    }
    return el("span", "action word", text);
  }

  /* A line in words: text parts and {cards: [...]} parts drawn as small cards. */
  /* A narration line: text and small cards. ``nameOf`` (a live feed's lines) names each
     seat the line gives as a token, "{seat N}" counted from 0. */
  function say(parts, nameOf) {
    const line = document.createDocumentFragment();
    (parts || []).forEach((part) => {
      if (typeof part !== "string") line.append(row(part.cards, "small"));
      else line.append(nameOf ? part.replace(/\{seat (\d+)\}/g, (_, seat) => nameOf(Number(seat))) : part);
    });
    return line;
  }

  /* The lines a live feed's event tells (what the move ended; at a game's end, how it
     ended), appended to ``item``, seats named by ``nameOf``. */
  function tell(item, event, nameOf) {
    const line = (parts, cls) => { const p = el("p", cls); p.append(say(parts, nameOf)); return p; };
    (event.say || []).forEach((parts) => item.append(line(parts, "event")));
    if (!event.outcome) return;
    item.append(el("strong", "", "Game " + (event.game + 1) + " is over. "));
    event.outcome.forEach((parts) => item.append(line(parts, "event outcome")));
  }

  return { el, card, back, row, backs, action, say, tell };
})();
