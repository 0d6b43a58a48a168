// The tournament form's estimate follows the form: a change asks the server (which knows
// the schedule and the game's recent pace) for the estimate of the values as they stand.
"use strict";
(function () {
  const form = document.getElementById("tournament-form");
  const box = document.getElementById("estimate");
  if (!form || !box) return;
  let timer = null;
  let asked = 0;
  function update() {
    const values = new URLSearchParams(new FormData(form));
    values.delete("csrfmiddlewaretoken");
    const number = ++asked;
    fetch(form.dataset.estimate + "&" + values.toString(), { credentials: "same-origin" })
      .then(function (answer) { return answer.ok ? answer.text() : Promise.reject(answer.status); })
      .then(function (html) { if (number === asked) box.innerHTML = html; })
      .catch(function () { /* the estimate stays as it was; the form still works */ });
  }
  function soon() {
    clearTimeout(timer);
    timer = setTimeout(update, 250);
  }
  form.addEventListener("input", soon);
  form.addEventListener("change", soon);
})();
