/* The live lobby: on {"type": "lobby.changed"} re-fetch the lobby page and swap its table list
 * (#lobby-live), so lobby.html stays the one place that renders it. Reconnects with capped,
 * jittered exponential backoff; re-renders after a reconnect. Close codes: docs/live.md. */
(function () {
  "use strict";
  var root = document.getElementById("lobby-live");
  if (!root || !("WebSocket" in window) || !window.fetch || !window.DOMParser) return;
  var clubId = root.dataset.clubId;
  var FINAL = { 4401: true, 4403: true, 4404: true };
  var ws = null, attempts = 0, opened = false, busy = false, again = false, pingTimer = null;

  function refresh() {
    if (busy) { again = true; return; }
    busy = true;
    fetch(window.location.pathname, { credentials: "same-origin", headers: { "X-Requested-With": "lobby.js" } })
      .then(function (r) { if (!r.ok || r.redirected) throw new Error(String(r.status)); return r.text(); })
      .then(function (html) {
        var fresh = new DOMParser().parseFromString(html, "text/html").getElementById("lobby-live");
        var current = document.getElementById("lobby-live");
        if (fresh && current) current.replaceWith(document.importNode(fresh, true));
      })
      .catch(function () { /* the next change or reconnect tries again */ })
      .then(function () { busy = false; if (again) { again = false; refresh(); } });
  }

  function connect() {
    var scheme = window.location.protocol === "https:" ? "wss://" : "ws://";
    ws = new WebSocket(scheme + window.location.host + "/ws/clubs/" + clubId + "/lobby/");
    ws.onopen = function () {
      attempts = 0;
      if (opened) refresh();  // changes made while we were away
      opened = true;
      document.body.dataset.lobbyLive = "open";
      // Keeps the member counted as present (no "your turn" email while the page is open).
      clearInterval(pingTimer);
      pingTimer = setInterval(function () { if (ws) ws.send(JSON.stringify({ type: "ping" })); }, 25000);
    };
    ws.onmessage = function (event) {
      var msg;
      try { msg = JSON.parse(event.data); } catch (e) { return; }
      if (msg.type === "lobby.changed") refresh();
    };
    ws.onclose = function (event) {
      clearInterval(pingTimer);
      ws = null;
      document.body.dataset.lobbyLive = "closed";
      if (FINAL[event.code]) return;
      var delay = Math.min(30000, 500 * Math.pow(2, attempts)) * (0.5 + Math.random() / 2);
      attempts += 1;
      setTimeout(connect, delay);
    };
  }
  connect();
})();
