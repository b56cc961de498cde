/* Live countdowns of the turn clocks: every <time data-countdown="ISO instant"> shows the time left
 * beside the absolute time, written in the member's own zone (#table-root data-time-zone; the live
 * table's frames are rendered in UTC, the page as loaded in the member's zone for the no-JavaScript
 * fallback). Looks the elements up on every tick, so parts of the page swapped in by table.js count
 * down too. */
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

  var root = document.getElementById ? document.getElementById("table-root") : null;
  var zone = (root && root.dataset.timeZone) || undefined;
  function formatter(options) {
    try { return new Intl.DateTimeFormat("en-GB", Object.assign({ timeZone: zone, hourCycle: "h23" }, options)); }
    catch (e) { return new Intl.DateTimeFormat("en-GB", Object.assign({ hourCycle: "h23" }, options)); }
  }
  var short = formatter({ hour: "2-digit", minute: "2-digit" });
  var long = formatter({ weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit",
                         second: "2-digit" });
  function localise(el, at) {
    if (!root || !el.dataset || el.dataset.localised === String(at)) return;
    el.textContent = (el.classList.contains("seat-clock") ? short : long).format(new Date(at));
    el.dataset.localised = String(at);
  }

  function tick() {
    var now = Date.now();
    Array.prototype.forEach.call(document.querySelectorAll("time[data-countdown]"), function (el) {
      var at = Date.parse(el.getAttribute("data-countdown"));
      if (isNaN(at)) return;
      localise(el, at);
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
