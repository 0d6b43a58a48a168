/* Refresh one part of the page while its work runs (a check, a tournament). The server
   renders the part (?part=NAME); it says data-waiting="0" once there is nothing to wait for. */
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
  }
  if (waiting()) setTimeout(refresh, every);
})();
