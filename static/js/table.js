/* The live table (games/consumers.py has the message protocol and close codes).
 *
 * Progressive enhancement: without this script every form posts and the page reloads.
 * With it, action and chat forms go over the socket while it is open, and after every
 * version the server pushes this member's table area (#table-live) rendered from the
 * same template the page includes (games/area.jinja); it is swapped in unless it is
 * older than the one shown (versions never go back). No page is re-fetched.
 * A dropped socket reconnects with capped, jittered exponential backoff behind a visible
 * "Reconnecting…" banner, and resyncs on reconnect (the server sends the full view).
 */
(function () {
  "use strict";
  var root = document.getElementById("table-root");
  if (!root || !("WebSocket" in window) || !window.fetch || !window.DOMParser) return;

  var tableId = root.dataset.tableId;
  var statusEl = document.getElementById("live-status");
  var errorEl = document.getElementById("live-error");
  var FINAL = { 4401: "You are logged out: log in again to follow this table.",
                4403: "You may no longer watch this table.",
                4404: "This table no longer exists." };
  var ws = null, attempts = 0, retryTimer = null, stopped = false, pingTimer = null;
  var latest = null;        // newest (hand, version) the socket told us about
  var acked = null;         // (hand, version) of this member's own last acknowledged action

  function live() { return document.getElementById("table-live"); }
  function num(v) { return v === "" || v === undefined || v === null ? null : Number(v); }
  function shownKey() { var el = live(); return { hand: num(el.dataset.handId), version: num(el.dataset.handVersion) }; }
  // (hand, version) in order: hand ids only grow, so a new hand's version 0 is newer than any old version.
  function newer(a, b) {
    if (a.hand === null) return false;
    if (b.hand === null || a.hand !== b.hand) return b.hand === null || a.hand > b.hand;
    return a.version > b.version;
  }

  function setStatus(text, kind) {
    if (!text) { statusEl.hidden = true; statusEl.textContent = ""; statusEl.className = "live-status"; return; }
    statusEl.textContent = text;
    statusEl.className = "live-status " + (kind || "");
    statusEl.hidden = false;
  }
  function showError(text) {
    errorEl.textContent = text;
    errorEl.hidden = !text;
  }

  function setTitle(myTurn) {
    var name = live().dataset.tableName || document.title;
    document.title = (myTurn ? "\u25CF Your turn \u00B7 " : "") + name + " \u00B7 Home club";
    document.body.classList.toggle("my-turn", !!myTurn);
  }

  // ---- the table area: pushed by the server as HTML after every version, swapped in when not older ----
  // The page's own CSRF token (forms outside the table area carry it); pushed forms carry none.
  function csrfToken() {
    var input = document.querySelector('input[name="csrfmiddlewaretoken"]');
    return input ? input.value : "";
  }
  function addTokens(el) {
    var token = csrfToken();
    if (!token) return;
    Array.prototype.forEach.call(el.querySelectorAll('form[method="post"]'), function (form) {
      if (form.querySelector('input[name="csrfmiddlewaretoken"]')) return;
      var input = document.createElement("input");
      input.type = "hidden";
      input.name = "csrfmiddlewaretoken";
      input.value = token;
      form.insertBefore(input, form.firstChild);
    });
  }
  function onArea(msg) {
    var key = { hand: msg.hand, version: msg.version };
    // Never go back: an area older than the one shown is dropped (after a reconnect, the same version
    // is taken again: seats may have moved).
    if (newer(shownKey(), key)) return;
    // Nor older than this member's own acknowledged action: an area from between (another seat's
    // sealed decision landing first) would offer the decision just made again.
    if (acked && newer(acked, key)) return;
    var doc = new DOMParser().parseFromString(msg.html, "text/html");
    var fresh = doc.getElementById("table-live");
    if (!fresh) return;
    var node = document.importNode(fresh, true);
    addTokens(node);
    var moved = newer(key, shownKey());
    live().replaceWith(node);
    enhanceArea();
    // One-shot messages belong to the moment they were given: the next update takes them away.
    if (moved) Array.prototype.forEach.call(document.querySelectorAll("ul.messages"), function (ul) { ul.remove(); });
    if (!latest || newer(key, latest)) latest = key;
    setTitle(msg.your_turn);
    document.dispatchEvent(new CustomEvent("table:area", { detail: key }));
  }

  // ---- the last hand's result stays until the member dismisses it (remembered for this tab) ----
  var DISMISSED_KEY = "table-dismissed-results";
  function dismissed() {
    try { return JSON.parse(window.sessionStorage.getItem(DISMISSED_KEY) || "[]"); } catch (e) { return []; }
  }
  function dismiss(handId) {
    var ids = dismissed().filter(function (id) { return id !== handId; }).concat([handId]).slice(-50);
    try { window.sessionStorage.setItem(DISMISSED_KEY, JSON.stringify(ids)); } catch (e) { /* private mode */ }
    enhanceArea();
  }
  function enhanceArea() {
    var gone = dismissed();
    Array.prototype.forEach.call(live().querySelectorAll("section.previous[data-hand-id]"), function (section) {
      if (gone.indexOf(section.dataset.handId) !== -1) { section.remove(); return; }
      var button = section.querySelector("button.dismiss");
      if (!button) return;
      button.hidden = false;
      button.addEventListener("click", function () { dismiss(section.dataset.handId); });
    });
  }

  // ---- keyboard: each offered action's key (shown on its button), never while typing ----
  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey || event.repeat) return;
    var target = event.target;
    if (target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) return;
    var key = (event.key || "").toLowerCase();
    if (key.length !== 1) return;
    var button = live().querySelector('form.actions button[data-key="' + key + '"]:not([disabled])');
    if (!button) return;
    event.preventDefault();
    button.click();
  });

  function onAck(msg) {
    showError("");
    var key = { hand: num(msg.hand), version: num(msg.version) };
    if (key.hand !== null && key.version !== null && (!acked || newer(key, acked))) acked = key;
  }

  function onView(msg) {
    var key = { hand: msg.hand, version: msg.version };
    if (!latest || newer(key, latest)) latest = key;
  }

  // ---- chat: text goes in with textContent, never as HTML ----
  var chatList = document.getElementById("chat-lines");
  var chat = document.getElementById("chat");
  function chatLine(m) {
    var li = document.createElement("li");
    li.className = "chat-line";
    li.dataset.id = m.id;
    var who = document.createElement("strong");
    who.className = "chat-author";
    who.textContent = m.author;
    var text = document.createElement("span");
    text.className = "chat-text";
    text.textContent = m.text;
    li.appendChild(who);
    li.appendChild(document.createTextNode(" "));
    li.appendChild(text);
    if (chat && chat.dataset.mayHide === "1") {
      var hide = document.createElement("button");
      hide.type = "button";
      hide.className = "link chat-hide-live";
      hide.textContent = "hide";
      hide.title = "Hide this message for everyone";
      hide.addEventListener("click", function () { send({ type: "chat.hide", id: Number(m.id) }); });
      li.appendChild(document.createTextNode(" "));
      li.appendChild(hide);
    }
    return li;
  }
  function chatReplace(messages) {
    if (!chatList) return;
    while (chatList.firstChild) chatList.removeChild(chatList.firstChild);
    messages.forEach(function (m) { chatList.appendChild(chatLine(m)); });
  }
  function chatAdd(m) {
    if (!chatList || chatList.querySelector('[data-id="' + Number(m.id) + '"]')) return;
    var empty = chatList.querySelector(".chat-empty");
    if (empty) empty.remove();
    chatList.appendChild(chatLine(m));
    chatList.scrollTop = chatList.scrollHeight;
  }
  function chatHide(id) {
    var li = chatList && chatList.querySelector('[data-id="' + Number(id) + '"]');
    if (li) li.remove();
  }

  // ---- the socket ----
  function send(payload) {
    if (ws && ws.readyState === WebSocket.OPEN) { ws.send(JSON.stringify(payload)); return true; }
    return false;
  }

  function connect() {
    var scheme = window.location.protocol === "https:" ? "wss://" : "ws://";
    ws = new WebSocket(scheme + window.location.host + "/ws/tables/" + tableId + "/");
    root.dataset.live = "connecting";
    ws.onopen = function () {
      attempts = 0;
      root.dataset.live = "open";
      setStatus("");
      clearInterval(pingTimer);
      pingTimer = setInterval(function () { send({ type: "ping" }); }, 25000);
    };
    ws.onmessage = function (event) {
      var msg;
      try { msg = JSON.parse(event.data); } catch (e) { return; }
      switch (msg.type) {
        case "hand.view": onView(msg); break;
        case "table.html": onArea(msg); break;
        case "error": showError(msg.message); unlockForms(); send({ type: "sync" }); break;
        case "action.ok": onAck(msg); break;
        case "chat.history": chatReplace(msg.messages); break;
        case "chat.message": chatAdd(msg.message); break;
        case "chat.hidden": chatHide(msg.id); break;
        case "chat.ok": var input = document.getElementById("chat-text"); if (input) input.value = ""; break;
        default: break;
      }
    };
    ws.onclose = function (event) {
      clearInterval(pingTimer);
      ws = null;
      root.dataset.live = "closed";
      if (FINAL[event.code]) { stopped = true; setStatus(FINAL[event.code], "final"); return; }
      if (stopped) return;
      // Exponential backoff, capped at 30 s, with jitter so a restarted server is not stampeded.
      var delay = Math.min(30000, 500 * Math.pow(2, attempts)) * (0.5 + Math.random() / 2);
      attempts += 1;
      root.dataset.live = "reconnecting";
      setStatus("Offline, reconnecting\u2026", "reconnecting");
      clearTimeout(retryTimer);
      retryTimer = setTimeout(connect, delay);
    };
  }

  // ---- forms: over the socket when it is open, else a plain post ----
  function unlockForms() {
    Array.prototype.forEach.call(document.querySelectorAll("#table-live form.actions button"), function (b) {
      b.disabled = false;
    });
  }
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!ws || ws.readyState !== WebSocket.OPEN) return;   // let the form post
    if (form.matches("#table-live form.actions")) {
      var button = event.submitter;
      if (!button || !button.value) return;
      event.preventDefault();
      send({ type: "action", hand: Number(form.elements.hand.value),
             version: Number(form.elements.version.value), action: button.value });
      Array.prototype.forEach.call(form.querySelectorAll("button"), function (b) { b.disabled = true; });
    } else if (form.id === "chat-form") {
      var text = form.elements.text.value.trim();
      if (!text) return;
      event.preventDefault();
      send({ type: "chat", text: text });
    } else if (form.matches(".chat-hide")) {
      var li = form.closest("[data-id]");
      if (!li) return;
      event.preventDefault();
      send({ type: "chat.hide", id: Number(li.dataset.id) });
    }
  });

  // Back from a sleeping phone or a background tab: reconnect now rather than after the backoff.
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible" && !ws && !stopped) { clearTimeout(retryTimer); attempts = 0; connect(); }
  });

  // The network went away: say so at once, before the socket notices.
  window.addEventListener("offline", function () { if (!stopped) setStatus("Offline, reconnecting\u2026", "reconnecting"); });

  setTitle(live().dataset.myTurn === "1");
  enhanceArea();
  connect();
  // For tests and curious members: drop the socket as a network would.
  window.tableLive = { drop: function () { if (ws) ws.close(4000, "dropped"); } };
})();
