// The hand replay in the page: fetches the steps (each already drawn by the server, as the
// ?step=N links draw it) and steps through them without reloading; arrows step, space plays.
(function () {
  "use strict";
  var root = document.getElementById("replay");
  if (!root || !window.fetch) { return; }
  var holder = document.getElementById("replay-step");
  var prev = root.querySelector('[data-go="prev"]');
  var next = root.querySelector('[data-go="next"]');
  var play = root.querySelector('[data-go="play"]');
  var where = root.querySelector("[data-where]");
  var link = root.querySelector("[data-link]");
  var steps = null;
  var index = parseInt(root.dataset.step, 10) || 0;
  var last = parseInt(root.dataset.last, 10) || 0;
  var timer = null;

  function setLink(el, to) {
    if (to === null) { el.removeAttribute("href"); el.setAttribute("aria-disabled", "true"); }
    else { el.setAttribute("href", "?step=" + to); el.removeAttribute("aria-disabled"); }
  }

  function show(to) {
    if (!steps || to < 0 || to > last) { return false; }
    index = to;
    holder.innerHTML = steps[to].html;  // drawn by the server's template, escaped there
    where.textContent = String(to);
    setLink(prev, to > 0 ? to - 1 : null);
    setLink(next, to < last ? to + 1 : null);
    link.setAttribute("href", "?step=" + to);
    link.textContent = "?step=" + to;
    if (window.history && window.history.replaceState) {
      window.history.replaceState(null, "", "?step=" + to);
    }
    return true;
  }

  function stop() {
    if (timer !== null) { window.clearInterval(timer); timer = null; }
    play.textContent = "Play";
    play.setAttribute("aria-pressed", "false");
  }

  function start() {
    if (index >= last) { show(0); }
    timer = window.setInterval(function () { if (!show(index + 1)) { stop(); } }, 1500);
    play.textContent = "Pause";
    play.setAttribute("aria-pressed", "true");
  }

  function step(delta, event) {
    if (!steps) { return; }
    if (event) { event.preventDefault(); }
    stop();
    show(index + delta);
  }

  fetch(root.dataset.jsonUrl, { credentials: "same-origin", headers: { Accept: "application/json" } })
    .then(function (r) { if (!r.ok) { throw new Error(r.status); } return r.json(); })
    .then(function (data) {
      steps = data.steps;
      last = steps.length - 1;
      play.hidden = false;
      play.setAttribute("aria-pressed", "false");
      prev.addEventListener("click", function (e) { step(-1, e); });
      next.addEventListener("click", function (e) { step(1, e); });
      play.addEventListener("click", function () { if (timer === null) { start(); } else { stop(); } });
      document.addEventListener("keydown", function (e) {
        var tag = (e.target && e.target.tagName) || "";
        if (e.altKey || e.ctrlKey || e.metaKey || /INPUT|TEXTAREA|SELECT/.test(tag)) { return; }
        if (e.key === "ArrowLeft") { step(-1, e); }
        else if (e.key === "ArrowRight") { step(1, e); }
        else if (e.key === " " && tag !== "BUTTON" && tag !== "A") { e.preventDefault(); play.click(); }
      });
    })
    .catch(function () { /* the links still step through the server's pages */ });
}());
