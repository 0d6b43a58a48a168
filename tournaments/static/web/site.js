// Every page: the main menu folds behind a "Menu" button on a narrow screen (the CSS
// decides when; without this script the menu is simply always open), and a form's error
// summary takes the focus, so a keyboard or screen-reader user starts at what to fix.
"use strict";
(function () {
  const summary = document.getElementById("error-summary");
  if (summary) summary.focus();
  const nav = document.getElementById("nav");
  const toggle = nav && nav.querySelector(".menu-toggle");
  if (!toggle) return;
  nav.classList.add("collapsible");
  toggle.hidden = false;
  function set(open) {
    nav.classList.toggle("open", open);
    toggle.setAttribute("aria-expanded", open ? "true" : "false");
  }
  toggle.addEventListener("click", function () {
    set(toggle.getAttribute("aria-expanded") !== "true");
  });
  nav.addEventListener("keydown", function (event) {
    if (event.key === "Escape" && nav.classList.contains("open")) {
      set(false);
      toggle.focus();
    }
  });
})();
