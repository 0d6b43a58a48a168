/* Refresh one part of the page while its work runs (a check, a tournament, a match). The
   server renders the part (?part=NAME); it says data-waiting="0" once there is nothing to
   wait for. With data-reload="1" the whole page is then loaded again (a match's result
   and replay); else the notes marked "until-done" (a tournament "started") are taken away. */
"use strict";
(function () {
  const script = document.currentScript;
  const part = script.dataset.part, target = script.dataset.target;
  const every = 1500;
  function waiting() {
    const node = document.getElementById(target);
    return node && node.dataset.waiting === "1";
  }
  async function refresh() {
    const url = new URL(window.location.href);
    url.searchParams.set("part", part);
    try {
      const answer = await fetch(url, { headers: { "X-Requested-With": "fetch" } });
      if (answer.ok) {
        const holder = document.createElement("div");
        holder.innerHTML = await answer.text();
        const fresh = holder.querySelector("#" + target);
        if (fresh) document.getElementById(target).replaceWith(fresh);
      }
    } catch (error) {
      /* a missed refresh is retried at the next tick */
    }
    if (waiting()) setTimeout(refresh, every);
    else if (script.dataset.reload === "1") window.location.reload();
    else done();
  }
  /* A note about the work in progress (a tournament "started") is out of date once it is over. */
  function done() {
    document.querySelectorAll(".messages .until-done").forEach((note) => note.remove());
    document.querySelectorAll(".messages").forEach((list) => {
      if (!list.children.length) (list.closest("[role=status]") || list).remove();
    });
  }
  if (waiting()) setTimeout(refresh, every);
  else done();
})();
