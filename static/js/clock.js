/* Live countdowns of the turn clocks: every <time data-countdown="ISO instant"> shows the time left
 * beside the absolute time the server rendered in the member's zone (the no-JavaScript fallback).
 * Looks the elements up on every tick, so parts of the page swapped in by table.js count down too. */
(function () {
  "use strict";

  function left(ms) {
    if (ms <= 0) return "now";
    var s = Math.floor(ms / 1000);
    var d = Math.floor(s / 86400), h = Math.floor((s % 86400) / 3600), m = Math.floor((s % 3600) / 60);
    s = s % 60;
    function two(n) { return (n < 10 ? "0" : "") + n; }
    if (d > 0) return d + "d " + h + "h " + two(m) + "m";
    if (h > 0) return h + ":" + two(m) + ":" + two(s);
    if (m === 0) return s + (s === 1 ? " second" : " seconds");  // under a minute: say seconds
    return m + ":" + two(s);
  }

  function tick() {
    var now = Date.now();
    Array.prototype.forEach.call(document.querySelectorAll("time[data-countdown]"), function (el) {
      var at = Date.parse(el.getAttribute("data-countdown"));
      if (isNaN(at)) return;
      var out = el.nextElementSibling;
      if (!out || !out.classList.contains("countdown")) {
        out = document.createElement("span");
        out.className = "countdown";
        out.setAttribute("aria-hidden", "true");  // the absolute time is what screen readers get
        el.parentNode.insertBefore(out, el.nextSibling);
      }
      var text = at <= now ? " (running out now)" : " (in " + left(at - now) + ")";
      if (out.textContent !== text) out.textContent = text;
      out.classList.toggle("urgent", at - now < 60000);
    });
  }

  tick();
  window.setInterval(tick, 1000);
})();
