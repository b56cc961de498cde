/* The live lobby, My tables and the header's count: on {"type": "lobby.changed"} from a club's lobby socket,
 * re-fetch the blocks fed by that club and swap them: #lobby-live (from the lobby page itself, so lobby.html
 * stays the one place that renders it), #my-tables-live (from its data-source, for the clubs in its
 * data-club-ids) and the header's #my-tables-link (the same source: one fetch brings both). On a table page
 * (#table-root) the header alone follows, told by the table's own socket (static/js/table.js): no second
 * socket. At most
 * MAX_SOCKETS lobby sockets (the member's socket cap is shared with their tables); the clubs beyond them are
 * re-fetched every minute instead. Reconnects with capped, jittered exponential backoff; re-renders after a
 * reconnect. Close codes: docs/live.md. */
(function () {
  "use strict";
  if (!("WebSocket" in window) || !window.fetch || !window.DOMParser) return;
  var FINAL = { 4401: true, 4403: true, 4404: true };
  var MAX_SOCKETS = 3;
  var blocks = [];  // {ids: [element ids], source, clubs: {id: true}, busy, again}

  function block(ids, source, clubs) {
    ids = ids.filter(function (id) { return document.getElementById(id); });
    if (!ids.length) return;
    var set = {};
    clubs.forEach(function (c) { if (c) set[c] = true; });
    blocks.push({ ids: ids, source: source, clubs: set, busy: false, again: false });
  }
  var lobby = document.getElementById("lobby-live");
  var mine = document.getElementById("my-tables-live");
  var header = document.getElementById("my-tables-link");
  var table = document.getElementById("table-root");
  var mineClubs = mine ? (mine.dataset.clubIds || "").split(" ") : [];
  if (lobby) block(["lobby-live"], window.location.pathname, [lobby.dataset.clubId]);
  if (mine || header) block(["my-tables-live", "my-tables-link"], (mine || header).dataset.source,
    mineClubs.concat(lobby ? [lobby.dataset.clubId] : [], table ? [table.dataset.clubId] : []));

  function refresh(b) {
    if (b.busy) { b.again = true; return; }
    b.busy = true;
    fetch(b.source, { credentials: "same-origin", headers: { "X-Requested-With": "lobby.js" } })
      .then(function (r) { if (!r.ok || r.redirected) throw new Error(String(r.status)); return r.text(); })
      .then(function (html) {
        var doc = new DOMParser().parseFromString(html, "text/html");
        b.ids.forEach(function (id) {
          var fresh = doc.getElementById(id), current = document.getElementById(id);
          if (fresh && current) current.replaceWith(document.importNode(fresh, true));
        });
        document.dispatchEvent(new CustomEvent("lobby:fresh", { detail: { ids: b.ids } }));
      })
      .catch(function () { /* the next change or reconnect tries again */ })
      .then(function () { b.busy = false; if (b.again) { b.again = false; refresh(b); } });
  }
  function changed(clubId) { blocks.forEach(function (b) { if (b.clubs[clubId]) refresh(b); }); }

  function connect(clubId) {
    var scheme = window.location.protocol === "https:" ? "wss://" : "ws://";
    var ws = null, attempts = 0, opened = false, pingTimer = null;
    function open() {
      ws = new WebSocket(scheme + window.location.host + "/ws/clubs/" + clubId + "/lobby/");
      wire();
    }
    function wire() {
      ws.onopen = function () {
        attempts = 0;
        changed(clubId);  // changes made while we were away, or between the page's render and this open
        opened = true;
        document.body.dataset.lobbyLive = "open";
        // Keeps the member counted as present (no "your turn" email while the page is open).
        clearInterval(pingTimer);
        pingTimer = setInterval(function () { ws.send(JSON.stringify({ type: "ping" })); }, 25000);
      };
      ws.onmessage = function (event) {
        var msg;
        try { msg = JSON.parse(event.data); } catch (e) { return; }
        if (msg.type === "lobby.changed") changed(clubId);
      };
      ws.onclose = function (event) {
        clearInterval(pingTimer);
        document.body.dataset.lobbyLive = "closed";
        if (FINAL[event.code]) return;
        var delay = Math.min(30000, 500 * Math.pow(2, attempts)) * (0.5 + Math.random() / 2);
        attempts += 1;
        setTimeout(open, delay);
      };
    }
    open();
  }

  if (table) {
    if (window.tableLive) {
      window.tableLive.listen(function (msg) { if (msg.type === "lobby.changed") changed(table.dataset.clubId); });
    }
    return;
  }
  var clubs = [];
  if (lobby) clubs.push(lobby.dataset.clubId);
  mineClubs.forEach(function (c) { if (c && clubs.indexOf(c) < 0) clubs.push(c); });
  var most = MAX_SOCKETS;
  clubs.slice(0, most).forEach(connect);
  if (clubs.length > most && (mine || header)) {
    setInterval(function () {
      blocks.forEach(function (b) { if (b.ids.indexOf("my-tables-link") >= 0) refresh(b); });
    }, 60000);
  }
})();
