/* Turn notices and the table's feel in the browser (every page).
 * - Registers the service worker (/sw.js): the site installs as an app and can take Web Push.
 * - At a table: when the table area (#table-live, swapped by table.js with a "table:area" event) turns to
 *   data-my-turn="1" while the tab is hidden, plays a short sound and/or shows a notification, each only
 *   if the member switched it on for this device (kept in localStorage).
 * - At a table, each also only if switched on for this device: a sound when a card is turned, a bet goes in
 *   or a hand is won, and a little motion (static/css/table.css; none under prefers-reduced-motion). Both
 *   are chosen from public facts of the area only (the board's face-up cards, the pot, the result), the same
 *   for every choice of a sealed decision, so neither tells one before the reveal. The tones are made here
 *   with the WebAudio API: no sound file, no outside host.
 * - On the notifications page: those switches, and subscribing this device to push. */
(function () {
  "use strict";
  var SOUND = "notify.sound", BROWSER = "notify.browser", MOTION = "notify.motion";
  // The sound of each kind: its key in localStorage and its notes (Hz), one after the other.
  var SOUNDS = { turn: { key: SOUND, notes: [660, 880] },
                 card: { key: "notify.sound.card", notes: [1320], wave: "triangle" },
                 bet: { key: "notify.sound.bet", notes: [440, 523], step: 0.09 },
                 win: { key: "notify.sound.win", notes: [523, 659, 784], wave: "triangle" } };

  function stored(key) { try { return window.localStorage.getItem(key) === "1"; } catch (e) { return false; } }
  function store(key, on) { try { window.localStorage.setItem(key, on ? "1" : "0"); } catch (e) { /* private mode */ } }

  var registration = null;
  if ("serviceWorker" in navigator) {
    navigator.serviceWorker.register("/sw.js", { scope: "/" })
      .then(function (r) { registration = r; document.documentElement.dataset.sw = "registered"; })
      .catch(function () { document.documentElement.dataset.sw = "failed"; });
  }

  // ---- at a table ----
  function play(kind) {
    var sound = SOUNDS[kind], Ctx = window.AudioContext || window.webkitAudioContext;
    if (!sound || !Ctx) return;
    var step = sound.step || 0.18, length = step - 0.02;
    try {
      var ctx = new Ctx(), now = ctx.currentTime;
      sound.notes.forEach(function (freq, i) {
        var osc = ctx.createOscillator(), gain = ctx.createGain(), at = now + i * step;
        osc.type = sound.wave || "sine";
        osc.frequency.value = freq;
        gain.gain.setValueAtTime(0.0001, at);
        gain.gain.exponentialRampToValueAtTime(0.2, at + 0.02);
        gain.gain.exponentialRampToValueAtTime(0.0001, at + length);
        osc.connect(gain); gain.connect(ctx.destination);
        osc.start(at); osc.stop(at + length + 0.01);
      });
      setTimeout(function () { ctx.close(); }, 1000);
    } catch (e) { /* no sound then */ }
  }
  function beep() { play("turn"); }

  // ---- a card turned, a bet, a win: from the public part of the area only ----
  // The facts every viewer's area shows alike (the member's own cards and buttons are left out).
  function facts(area) {
    var board = area.querySelectorAll(".felt .board .card");
    var up = Array.prototype.map.call(board, function (c) { return c.classList.contains("back") ? "" : c.textContent; });
    var pot = area.querySelector(".felt .pot strong");
    return { hand: area.dataset.handId || "", up: up, pot: pot ? pot.textContent : "",
             over: !!area.querySelector("section.hand .result") };
  }
  function faceUp(f) { return f.up.filter(function (c) { return c; }).length; }
  function potCents(f) { return Number(f.pot.replace(/[^0-9]/g, "")) || 0; }
  // The kind of sound from one area to the next (null: none). A new hand is cards dealt.
  function soundFor(before, after) {
    if (!before || !after.hand) return null;
    if (before.hand !== after.hand) return "card";
    if (after.over && !before.over) return "win";
    if (faceUp(after) > faceUp(before)) return "card";
    if (potCents(after) > potCents(before)) return "bet";
    return null;
  }
  function animate(area, before, after) {
    if (!before || before.hand !== after.hand) return;
    Array.prototype.forEach.call(area.querySelectorAll(".felt .board .card"), function (c, i) {
      if (after.up[i] && !before.up[i]) c.classList.add("dealt");
    });
    var pot = area.querySelector(".felt .pot");
    if (pot && potCents(after) > potCents(before)) pot.classList.add("chips-in");
  }

  var lastFacts = null;
  function onArea() {
    var area = document.getElementById("table-live");
    if (!area) return;
    var now = facts(area), kind = soundFor(lastFacts, now);
    if (stored(MOTION)) animate(area, lastFacts, now);
    lastFacts = now;
    if (!kind) return;
    document.documentElement.dataset.lastSound = kind;
    if (stored(SOUNDS[kind].key)) play(kind);
  }
  window.tableFeel = { facts: facts, soundFor: soundFor };
  if (stored(MOTION)) document.documentElement.dataset.motion = "on";

  function announce(area) {
    var name = area.dataset.tableName || "the table";
    document.documentElement.dataset.notified = String(Number(document.documentElement.dataset.notified || 0) + 1);
    if (stored(SOUND)) beep();
    if (stored(BROWSER) && "Notification" in window && Notification.permission === "granted") {
      var options = { body: "The table waits for you.", tag: "turn-" + window.location.pathname, data: { url: window.location.href } };
      if (registration && registration.showNotification) {
        registration.showNotification("Your turn at " + name, options).catch(function () {});
      } else {
        try { new Notification("Your turn at " + name, options); } catch (e) { /* some phones allow only the worker's */ }
      }
    }
  }

  var wasMyTurn = null;
  function checkTurn() {
    var area = document.getElementById("table-live");
    if (!area) return;
    var mine = area.dataset.myTurn === "1";
    if (mine && wasMyTurn === false && document.visibilityState === "hidden") announce(area);
    wasMyTurn = mine;
  }
  if (document.getElementById("table-live")) {
    checkTurn();
    lastFacts = facts(document.getElementById("table-live"));
    document.addEventListener("table:area", checkTurn);
    document.addEventListener("table:area", onArea);
  }

  // ---- the notifications page ----
  var settings = document.getElementById("notify-settings");
  if (!settings) return;
  var status = document.getElementById("notify-status");
  var sound = document.getElementById("notify-sound"), browser = document.getElementById("notify-browser");
  sound.checked = stored(SOUND);
  browser.checked = stored(BROWSER) && "Notification" in window && Notification.permission === "granted";
  sound.addEventListener("change", function () { store(SOUND, sound.checked); if (sound.checked) beep(); });
  Array.prototype.forEach.call(settings.querySelectorAll("input[data-sound]"), function (box) {
    var kind = box.dataset.sound;
    box.checked = stored(SOUNDS[kind].key);
    box.addEventListener("change", function () { store(SOUNDS[kind].key, box.checked); if (box.checked) play(kind); });
  });
  var motion = document.getElementById("notify-motion");
  motion.checked = stored(MOTION);
  motion.addEventListener("change", function () { store(MOTION, motion.checked); });
  browser.addEventListener("change", function () {
    if (!browser.checked) { store(BROWSER, false); return; }
    if (!("Notification" in window)) { browser.checked = false; status.textContent = "This browser cannot show notifications."; return; }
    Notification.requestPermission().then(function (permission) {
      var ok = permission === "granted";
      browser.checked = ok;
      store(BROWSER, ok);
      status.textContent = ok ? "Notifications are on for this device." : "The browser did not allow notifications: change it in the site's settings.";
    });
  });

  var key = settings.dataset.vapidKey;
  var on = document.getElementById("push-on"), off = document.getElementById("push-off");
  var pushStatus = document.getElementById("push-status"), count = document.getElementById("push-count");
  if (!key || !on) return;
  if (!("serviceWorker" in navigator) || !("PushManager" in window)) {
    pushStatus.textContent = "This browser cannot take push notifications (on an iPhone: add the site to the home screen first).";
    return;
  }
  var csrf = settings.querySelector("input[name=csrfmiddlewaretoken]");

  function keyBytes(b64) {
    var raw = window.atob((b64 + "===".slice((b64.length + 3) % 4)).replace(/-/g, "+").replace(/_/g, "/"));
    var out = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i += 1) out[i] = raw.charCodeAt(i);
    return out;
  }
  function post(url, body) {
    return fetch(url, { method: "POST", credentials: "same-origin", body: JSON.stringify(body),
                        headers: { "Content-Type": "application/json", "X-CSRFToken": csrf ? csrf.value : "" } })
      .then(function (r) { return r.json().then(function (data) { if (!r.ok) throw new Error(data.error || "The site refused it."); return data; }); });
  }
  function show(subscribed) { on.hidden = subscribed; off.hidden = !subscribed; }

  navigator.serviceWorker.ready.then(function (reg) {
    reg.pushManager.getSubscription().then(function (sub) { show(!!sub); });
    on.addEventListener("click", function () {
      pushStatus.textContent = "Asking the browser\u2026";
      reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(key) })
        .then(function (sub) { return post(settings.dataset.subscribeUrl, sub.toJSON()); })
        .then(function (data) { count.textContent = data.browsers; show(true); pushStatus.textContent = "Push notifications are on for this device."; })
        .catch(function (err) { pushStatus.textContent = "Push could not be switched on: " + err.message; });
    });
    off.addEventListener("click", function () {
      reg.pushManager.getSubscription().then(function (sub) {
        if (!sub) { show(false); return null; }
        return post(settings.dataset.unsubscribeUrl, { endpoint: sub.endpoint }).then(function () { return sub.unsubscribe(); });
      }).then(function () { show(false); pushStatus.textContent = "Push notifications are off for this device."; })
        .catch(function (err) { pushStatus.textContent = "Push could not be switched off: " + err.message; });
    });
  });
})();
