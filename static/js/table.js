/* The live table: the frames and their order are in docs/live.md.
 *
 * Progressive enhancement: without this script every form posts and the page reloads.
 * With it, action and chat forms go over the socket while it is open. After every version the
 * server sends the table's public frame (#table-live as a spectator sees it, the same bytes to
 * every screen) and, when this member's own part changed, their private frame (their cards,
 * buttons, forms and own seat row); the script puts the two together. Frames are ordered by
 * (hand, version, at) and never go back. When the public frame says this member's part changed
 * and the private frame has not come (a lost message), the script asks "sync" for one full render.
 * A dropped socket reconnects with capped, jittered exponential backoff behind a visible
 * "Reconnecting..." banner; the server sends everything again on reconnect.
 */
(function () {
  "use strict";
  var root = document.getElementById("table-root");
  if (!root || !("WebSocket" in window) || !window.fetch || !window.DOMParser) return;

  var tableId = root.dataset.tableId;
  var statusEl = document.getElementById("live-status");
  var others = [];  // listeners for the messages this script does not handle itself (the cut's receipts)
  var errorEl = document.getElementById("live-error");
  var FINAL = { 4401: "You are logged out: log in again to follow this table.",
                4403: "You may no longer watch this table.",
                4404: "This table no longer exists." };
  var WAIT_FOR_PRIVATE_MS = 1500;
  var ws = null, attempts = 0, retryTimer = null, stopped = false, pingTimer = null;
  var acked = null;         // (hand, version) of this member's own last acknowledged action
  var pub = null;           // the public frame shown (null: the page as loaded)
  var priv = null;          // this member's newest private frame (or the page's own parts, as loaded)
  var mySeat = null;        // this member's seat (null: a spectator, or not seated)
  var waiting = false, waitTimer = null, syncedAt = null;

  function live() { return document.getElementById("table-live"); }
  function num(v) { return v === "" || v === undefined || v === null ? null : Number(v); }
  function keyOf(m) { return { hand: num(m.hand), version: num(m.version), at: Number(m.at || 0) }; }
  // (hand, version, at) in order: hand ids only grow, so a new hand's version 0 is newer than any old version;
  // "at" orders the frames made at one version (a seat change, a sync).
  function cmp(a, b) {
    var ah = a.hand === null ? -1 : a.hand, bh = b.hand === null ? -1 : b.hand;
    if (ah !== bh) return ah < bh ? -1 : 1;
    var av = a.version === null ? -1 : a.version, bv = b.version === null ? -1 : b.version;
    if (av !== bv) return av < bv ? -1 : 1;
    return a.at === b.at ? 0 : (a.at < b.at ? -1 : 1);
  }
  function shownKey() {
    if (pub) return keyOf(pub);
    var el = live();
    return { hand: num(el.dataset.handId), version: num(el.dataset.handVersion), at: 0 };
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

  // ---- the table area: the public frame, with this member's own parts put in ----
  // The page's own CSRF token (forms outside the table area carry it); frames' forms carry none.
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
  function fragment(html) {
    var t = document.createElement("template");
    t.innerHTML = html;
    return t.content;
  }

  // The seats around the board with this member's own at the bottom, the others clockwise: left, top,
  // right (as games/presentation/area.py "around" lays them out for the page).
  function arrange(seat) {
    var el = live();
    var uls = {};
    ["bottom", "left", "top", "right"].forEach(function (side) { uls[side] = el.querySelector("ul.ring-" + side); });
    if (!uls.bottom || !uls.left || !uls.top || !uls.right) return;
    var rows = Array.prototype.slice.call(el.querySelectorAll("ul.ring > li.seat"));
    rows.sort(function (a, b) { return Number(a.dataset.seat) - Number(b.dataset.seat); });
    var start = 0;
    rows.forEach(function (li, i) { if (seat !== null && Number(li.dataset.seat) === seat) start = i; });
    var ring = rows.slice(start).concat(rows.slice(0, start));
    var rest = ring.slice(1), n = rest.length;
    var side = n > 2 ? Math.floor((n + 2) / 4) : 0, top = n - 2 * side;
    uls.bottom.replaceChildren.apply(uls.bottom, ring.slice(0, 1));
    uls.left.replaceChildren.apply(uls.left, rest.slice(0, side).reverse());
    uls.top.replaceChildren.apply(uls.top, rest.slice(side, side + top));
    uls.right.replaceChildren.apply(uls.right, rest.slice(side + top));
  }

  // Whether the private frame held is as new as the public frame shown asks for this member's part.
  function privateCurrent() {
    if (mySeat === null || !pub) return true;
    if (!priv || priv.hand !== pub.hand) return false;
    if (pub.full) return cmp(keyOf(priv), keyOf(pub)) >= 0;
    var mark = pub.marks ? pub.marks[String(mySeat)] : undefined;
    return priv.version >= (mark === undefined ? 0 : mark);
  }

  // A form acts on the hand shown, and only once this member's own part is as new as the area asks for: its
  // buttons stay disabled until then, so that a click never sends a form of an earlier hand or state.
  function formReady(form) {
    return privateCurrent() && !!form.elements.hand && Number(form.elements.hand.value) === shownKey().hand;
  }
  function enableForms() {
    Array.prototype.forEach.call(live().querySelectorAll("form.actions"), function (form) {
      var ready = formReady(form);
      Array.prototype.forEach.call(form.querySelectorAll("button"), function (b) { b.disabled = !ready; });
    });
  }

  // The forms act against the newest version shown (the private part may be older: it did not change).
  function setVersions() {
    var key = shownKey();
    Array.prototype.forEach.call(live().querySelectorAll("form.actions"), function (form) {
      if (form.elements.version && key.version !== null && Number(form.elements.hand.value) === key.hand) {
        form.elements.version.value = key.version;
      }
    });
  }

  function fillPrivate() {
    if (!priv || !priv.parts || cmp(keyOf(priv), shownKey()) > 0) return;  // its public frame is not here yet
    var el = live();
    if (pub && priv.hand === pub.hand) {
      Object.keys(priv.parts).forEach(function (name) {
        if (name === "row") return;
        var slot = el.querySelector('[data-part="' + name + '"]');
        if (slot) { slot.replaceChildren(fragment(priv.parts[name])); }
      });
      if (priv.parts.row && priv.seat !== null) {
        var old = el.querySelector('ul.ring > li.seat[data-seat="' + Number(priv.seat) + '"]');
        var row = fragment(priv.parts.row).querySelector("li");
        if (old && row) old.replaceWith(row);
      }
      if (priv.acted) Array.prototype.forEach.call(el.querySelectorAll("section.previous"), function (s) { s.remove(); });
      el.dataset.myTurn = priv.your_turn ? "1" : "";
    }
  }

  function refresh() {
    var el = live();
    if (pub) fillPrivate();
    arrange(mySeat);
    if (root.dataset.organiser === "1") {
      Array.prototype.forEach.call(el.querySelectorAll(".organisers-only"), function (s) { s.hidden = false; });
    }
    addTokens(el);
    setVersions();
    var current = privateCurrent();
    enableForms();
    setTitle(current && el.dataset.myTurn === "1");
    enhanceArea();
    if (current) { waiting = false; clearTimeout(waitTimer); }
  }

  // A public frame that asks for a private part not here: wait a moment for it (it may be on its way),
  // and ask for a full render at the next frame or when the wait is over.
  function awaitPrivate() {
    if (privateCurrent()) return;
    if (waiting) { resync(); return; }
    waiting = true;
    clearTimeout(waitTimer);
    waitTimer = setTimeout(function () { if (!privateCurrent()) resync(); }, WAIT_FOR_PRIVATE_MS);
  }
  function resync() {
    var key = shownKey();
    if (syncedAt && cmp(syncedAt, key) === 0) return;  // once per frame shown
    syncedAt = key;
    waiting = false;
    clearTimeout(waitTimer);
    mySeat = null;  // the answer says again whether this member has a part of their own (a private frame)
    send({ type: "sync" });
  }

  // A refusal asks for one full render, at most one a few seconds: a refusal for too many messages answered by
  // another message would be refused in turn, each time, until the server closes the socket for flooding.
  var SYNC_AFTER_ERROR_MS = 3000, errorSyncAt = 0;
  function syncAfterError() {
    var now = Date.now();
    if (now - errorSyncAt < SYNC_AFTER_ERROR_MS) return;
    errorSyncAt = now;
    send({ type: "sync" });
  }

  function versionOnly(key) { return { hand: key.hand, version: key.version, at: 0 }; }

  function onPublic(msg) {
    var key = keyOf(msg);
    // Never go back, nor behind this member's own acknowledged action: an area from between (another
    // seat's sealed decision landing first) would offer the decision just made again.
    if (cmp(key, shownKey()) < (pub ? 1 : 0)) return;
    if (acked && cmp(key, acked) < 0) return;
    var fresh = fragment(msg.html).getElementById("table-live");
    if (!fresh) return;
    // (a new version, not the frame a connect, a sync or a seat change sends at the version shown)
    var moved = cmp(versionOnly(key), versionOnly(shownKey())) > 0;
    pub = msg;
    live().replaceWith(fresh);
    refresh();
    // One-shot messages belong to the moment they were given: the next update takes them away.
    if (moved) Array.prototype.forEach.call(document.querySelectorAll("ul.messages"), function (ul) { ul.remove(); });
    awaitPrivate();
    document.dispatchEvent(new CustomEvent("table:area", { detail: key }));
  }

  function onPrivate(msg) {
    if (priv && priv.parts && cmp(keyOf(msg), keyOf(priv)) <= 0) return;
    var turned = !priv || !priv.your_turn !== !msg.your_turn;
    priv = msg;
    if (turned) mineChanged();
    mySeat = msg.seat === null || msg.seat === undefined ? null : Number(msg.seat);
    if (pub && cmp(keyOf(msg), shownKey()) <= 0) refresh();
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
    var key = { hand: num(msg.hand), version: num(msg.version), at: 0 };
    if (key.hand !== null && key.version !== null && (!acked || cmp(key, acked) > 0)) acked = key;
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
  // The header's count of tables waiting (static/js/lobby.js re-fetches it on "lobby.changed"): told by the
  // server when the member's part changed at another table, and here when their turn at this one did.
  function mineChanged() { others.forEach(function (listener) { listener({ type: "lobby.changed" }); }); }
  function liveAgain() {
    if (ws && ws.readyState === WebSocket.OPEN && statusEl.classList.contains("reconnecting")) setStatus("");
  }
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
      mineChanged();  // what changed while away, or between the page's render and this open
    };
    ws.onmessage = function (event) {
      var msg;
      try { msg = JSON.parse(event.data); } catch (e) { return; }
      liveAgain();
      switch (msg.type) {
        case "table.public": onPublic(msg); break;
        case "table.private": onPrivate(msg); break;
        case "error": showError(msg.message); unlockForms(); syncAfterError(); break;
        case "action.ok": onAck(msg); break;
        case "chat.history": chatReplace(msg.messages); break;
        case "chat.message": chatAdd(msg.message); break;
        case "chat.hidden": chatHide(msg.id); break;
        case "chat.ok": var input = document.getElementById("chat-text"); if (input) input.value = ""; break;
        default: others.forEach(function (listener) { listener(msg); }); break;
      }
    };
    ws.onclose = function (event) {
      clearInterval(pingTimer);
      ws = null;
      syncedAt = null;
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
  function unlockForms() { enableForms(); }
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!ws || ws.readyState !== WebSocket.OPEN) return;   // let the form post
    if (form.matches("#table-live form.actions")) {
      var button = event.submitter;
      if (!button || !button.value) return;
      event.preventDefault();
      // A click that beat the buttons' disabling: nothing is sent, and the page asks for a full render (even at a
      // frame it already asked one for: its answer did not bring the hand's own form).
      if (!formReady(form)) { enableForms(); syncedAt = null; resync(); return; }
      setVersions();
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

  // The network went away: say so at once, before the socket notices. Back with the socket still open (or
  // a frame arriving through it): the table is live again, so the words go.
  window.addEventListener("offline", function () { if (!stopped) setStatus("Offline, reconnecting\u2026", "reconnecting"); });
  window.addEventListener("online", liveAgain);

  // The page as loaded is rendered whole for this member: their own part, as new as the area, is in it.
  function pageParts() {
    var el = live(), parts = {};
    Array.prototype.forEach.call(el.querySelectorAll("[data-part]"), function (slot) { parts[slot.dataset.part] = slot.innerHTML; });
    var row = el.querySelector("ul.ring > li.seat.me");
    if (row) parts.row = row.outerHTML;
    return parts;
  }
  mySeat = num(live().dataset.seat);
  if (mySeat !== null) priv = { hand: shownKey().hand, version: shownKey().version, at: 0, seat: mySeat,
                                your_turn: live().dataset.myTurn === "1", acted: false, parts: pageParts() };
  setTitle(live().dataset.myTurn === "1");
  enhanceArea();
  connect();
  // For the cut (static/js/cut.js), which rides this socket rather than opening a second one; and for
  // tests and curious members: drop the socket as a network would.
  window.tableLive = {
    send: send,
    listen: function (listener) { others.push(listener); },
    drop: function () { if (ws) ws.close(4000, "dropped"); }
  };
})();
