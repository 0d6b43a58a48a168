/* Immediate feedback on every form that sends something (method="post"): once submitted,
   its buttons are disabled, so a second click cannot send it twice, and the pressed one
   says what is happening (data-busy="..." or "Working…"). They are disabled just after
   the submit event, so the pressed button's name and value are still sent. A page shown
   again from the back-forward cache gets its buttons back. */
"use strict";
(function () {
  const saved = new Map();
  document.addEventListener("submit", function (event) {
    const form = event.target;
    if (event.defaultPrevented || (form.method || "").toLowerCase() !== "post") return;
    if (form.dataset.confirm && !window.confirm(form.dataset.confirm)) {
      event.preventDefault();
      return;
    }
    const pressed = event.submitter;
    setTimeout(function () {
      form.setAttribute("aria-busy", "true");
      for (const button of form.querySelectorAll("button[type=submit], button:not([type])")) {
        saved.set(button, button.textContent);
        button.disabled = true;
      }
      if (pressed && pressed.tagName === "BUTTON") {
        pressed.textContent = pressed.dataset.busy || "Working…";
        pressed.classList.add("busy");
      }
    }, 0);
  });
  window.addEventListener("pageshow", function (event) {
    if (!event.persisted) return;
    for (const [button, text] of saved) {
      button.disabled = false;
      button.textContent = text;
      button.classList.remove("busy");
      button.closest("form")?.removeAttribute("aria-busy");
    }
    saved.clear();
  });
})();
