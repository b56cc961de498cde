/* Turn notices in the browser (every page).
 * - Registers the service worker (/sw.js): the site installs as an app and can take Web Push.
 * - At a table: when the table area (#table-live, swapped by table.js with a "table:area" event) turns to
 *   data-my-turn="1" while the tab is hidden, plays a short sound and/or shows a notification, each only
 *   if the member switched it on for this device (kept in localStorage).
 * - On the notifications page: those two switches, and subscribing this device to push. */
(function () {
  "use strict";
  var SOUND = "notify.sound", BROWSER = "notify.browser";

  function stored(key) { try { return window.localStorage.getItem(key) === "1"; } catch (e) { return false; } }
  function store(key, on) { try { window.localStorage.setItem(key, on ? "1" : "0"); } catch (e) { /* private mode */ } }

  var registration = null;
  if ("serviceWorker" in navigator) {
    navigator.serviceWorker.register("/sw.js", { scope: "/" })
      .then(function (r) { registration = r; document.documentElement.dataset.sw = "registered"; })
      .catch(function () { document.documentElement.dataset.sw = "failed"; });
  }

  // ---- at a table ----
  function beep() {
    var Ctx = window.AudioContext || window.webkitAudioContext;
    if (!Ctx) return;
    try {
      var ctx = new Ctx(), now = ctx.currentTime;
      [660, 880].forEach(function (freq, i) {
        var osc = ctx.createOscillator(), gain = ctx.createGain();
        osc.frequency.value = freq;
        gain.gain.setValueAtTime(0.0001, now + i * 0.18);
        gain.gain.exponentialRampToValueAtTime(0.2, now + i * 0.18 + 0.02);
        gain.gain.exponentialRampToValueAtTime(0.0001, now + i * 0.18 + 0.16);
        osc.connect(gain); gain.connect(ctx.destination);
        osc.start(now + i * 0.18); osc.stop(now + i * 0.18 + 0.17);
      });
      setTimeout(function () { ctx.close(); }, 800);
    } catch (e) { /* no sound then */ }
  }

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
    document.addEventListener("table:area", checkTurn);
  }

  // ---- the notifications page ----
  var settings = document.getElementById("notify-settings");
  if (!settings) return;
  var status = document.getElementById("notify-status");
  var sound = document.getElementById("notify-sound"), browser = document.getElementById("notify-browser");
  sound.checked = stored(SOUND);
  browser.checked = stored(BROWSER) && "Notification" in window && Notification.permission === "granted";
  sound.addEventListener("change", function () { store(SOUND, sound.checked); if (sound.checked) beep(); });
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
