/* A form that sends a file (data-keep-files) keeps the chosen file when the server finds
   something to fix: the form is sent in the background, and if the answer is the same
   page with its errors, the form is swapped for the answer's while the file inputs (and
   so the files chosen) stay; any other answer (a redirect, a refusal page) is shown as
   usual. Without this script the form is sent normally and the file has to be chosen
   again, as browsers never fill in a file field. */
"use strict";
(function () {
  const form = document.querySelector("form[data-keep-files]");
  if (!form) return;
  form.addEventListener("submit", async (event) => {
    if (event.defaultPrevented) return;
    event.preventDefault();
    let answer;
    try {
      answer = await fetch(form.action || window.location.href, { method: "POST", body: new FormData(form, event.submitter) });
    } catch (error) {
      form.submit();  // the network failed: let the browser try and say so
      return;
    }
    if (answer.redirected) { window.location.assign(answer.url); return; }
    const html = await answer.text();
    const fresh = new DOMParser().parseFromString(html, "text/html").querySelector("form[data-keep-files]");
    if (!fresh) {  // not the form again: show the page the server answered with
      document.open();
      document.write(html);
      document.close();
      return;
    }
    for (const input of form.querySelectorAll("input[type=file]")) {
      const twin = fresh.querySelector("input[type=file][name='" + input.name + "']");
      if (twin) twin.replaceWith(input);
    }
    form.replaceChildren(...fresh.childNodes);
    form.removeAttribute("aria-busy");
    const summary = document.getElementById("error-summary");
    if (summary) summary.focus();
  });
})();
