// This browser's device key (docs/fairness.md "Protocol", 1-3): the key that signs the member's cuts.
// An RSASSA-PKCS1-v1_5 key (2048 bits, e = 65537, SHA-256) made by WebCrypto with a private half that cannot
// be exported, kept in IndexedDB ("home-club" / "device-keys", one per member by user id), and registered
// for the member with POST /profile/devices/. Its fingerprint is SHA-256("home-club/device-v1\n" + n hex +
// "\n" + e), shown as its first 16 hex digits in groups of four.
// The member's devices as this browser last saw them are kept in local storage ("home-club-devices:<user>"):
// a device the site lists that this browser did not know is said loudly, since a server could register a
// key of its own in the member's name; the member acknowledges it once it is known to be theirs.
(function () {
  "use strict";
  var DB = "home-club", STORE = "device-keys";
  var KNOWN = "home-club-devices:";
  var TAG = "home-club/device-v1\n";
  var E = 65537;
  var ALGORITHM = { name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]),
                    hash: "SHA-256" };

  function toHex(bytes) {
    return Array.from(bytes).map(function (b) { return b.toString(16).padStart(2, "0"); }).join("");
  }
  function fromB64url(text) {
    var b = window.atob(text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4));
    var out = new Uint8Array(b.length);
    for (var i = 0; i < b.length; i++) out[i] = b.charCodeAt(i);
    return out;
  }
  function sha256Hex(text) {
    return window.crypto.subtle.digest("SHA-256", new TextEncoder().encode(text))
      .then(function (d) { return toHex(new Uint8Array(d)); });
  }

  function fingerprint(nHex, e) { return sha256Hex(TAG + nHex + "\n" + String(e)); }
  function short(fp) { return String(fp || "").slice(0, 16).replace(/(.{4})(?=.)/g, "$1 "); }
  function csrf() {
    var m = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
    if (m) return decodeURIComponent(m[1]);
    var input = document.querySelector('input[name="csrfmiddlewaretoken"]');
    return input ? input.value : "";
  }
  function available() { return !!(window.crypto && window.crypto.subtle && window.indexedDB); }

  // ---- IndexedDB: one record per member: {privateKey, publicKey, n, e, fingerprint, registered} ----
  function open() {
    return new Promise(function (resolve, reject) {
      var req = window.indexedDB.open(DB, 1);
      req.onupgradeneeded = function () {
        if (!req.result.objectStoreNames.contains(STORE)) req.result.createObjectStore(STORE);
      };
      req.onsuccess = function () { resolve(req.result); };
      req.onerror = function () { reject(req.error || new Error("this browser's storage is closed to the site")); };
    });
  }
  function read(userId) {
    return open().then(function (db) {
      return new Promise(function (resolve, reject) {
        var req = db.transaction(STORE, "readonly").objectStore(STORE).get(String(userId));
        req.onsuccess = function () { resolve(req.result || null); };
        req.onerror = function () { reject(req.error); };
      });
    });
  }
  // Keeps ``record`` unless another tab kept one first (then that one wins and is returned).
  function keepFirst(userId, record) {
    return open().then(function (db) {
      return new Promise(function (resolve, reject) {
        var tx = db.transaction(STORE, "readwrite"), store = tx.objectStore(STORE), kept = record;
        var req = store.get(String(userId));
        req.onsuccess = function () { if (req.result) kept = req.result; else store.put(record, String(userId)); };
        tx.oncomplete = function () { resolve(kept); };
        tx.onerror = function () { reject(tx.error); };
      });
    });
  }
  function update(userId, changes) {
    return open().then(function (db) {
      return new Promise(function (resolve, reject) {
        var tx = db.transaction(STORE, "readwrite"), store = tx.objectStore(STORE), out = null;
        var req = store.get(String(userId));
        req.onsuccess = function () {
          if (!req.result) return;
          out = Object.assign(req.result, changes);
          store.put(out, String(userId));
        };
        tx.oncomplete = function () { resolve(out); };
        tx.onerror = function () { reject(tx.error); };
      });
    });
  }

  function generate() {
    return window.crypto.subtle.generateKey(ALGORITHM, false, ["sign", "verify"]).then(function (pair) {
      return window.crypto.subtle.exportKey("jwk", pair.publicKey).then(function (jwk) {
        var n = toHex(fromB64url(jwk.n)).replace(/^0+/, "");
        return fingerprint(n, E).then(function (fp) {
          return { privateKey: pair.privateKey, publicKey: pair.publicKey, n: n, e: E, fingerprint: fp,
                   registered: false, created: new Date().toISOString() };
        });
      });
    });
  }

  // ---- the site's list of the member's devices ----
  var listed = null;  // this page's one look at GET /profile/devices/ (look() again after a change)
  function look() {
    listed = fetch("/profile/devices/", { credentials: "same-origin", cache: "no-store" }).then(function (r) {
      if (!r.ok) throw new Error("the site did not list your devices (" + r.status + ")");
      return r.json();
    });
    listed.catch(function () { listed = null; });
    return listed;
  }
  function devices() { return listed || look(); }

  function label() {
    var ua = navigator.userAgent || "";
    var browser = /Edg\//.test(ua) ? "Edge" : /Firefox\//.test(ua) ? "Firefox" : /Chrom(e|ium)\//.test(ua) ? "Chromium or Chrome"
      : /Safari\//.test(ua) ? "Safari" : "A browser";
    var system = /Android/.test(ua) ? "Android" : /iPhone|iPad/.test(ua) ? "iOS" : /Mac OS X/.test(ua) ? "macOS"
      : /Windows/.test(ua) ? "Windows" : /Linux/.test(ua) ? "Linux" : "";
    return (browser + (system ? " on " + system : "")).slice(0, 60);
  }

  function register(userId, record) {
    return fetch("/profile/devices/", {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrf() },
      body: JSON.stringify({ n: record.n, e: record.e, label: label() })
    }).then(function (r) {
      return r.json().catch(function () { return {}; }).then(function (body) {
        if (r.status !== 201 && r.status !== 200) throw new Error(body.error || "the site did not register this browser's key (" + r.status + ")");
        remember(userId, [record.fingerprint]);
        return update(userId, { registered: true, label: body.label || label() });
      });
    });
  }

  // This browser's key for the member, made and registered if it has none: resolves to its record, or
  // rejects with words fit for the member (the site refused it, storage is closed, ...).
  var readying = {};
  function ready(userId) {
    if (!available()) return Promise.reject(new Error("this browser cannot keep a key here (it needs a secure connection and storage)"));
    var id = String(userId);
    if (readying[id]) return readying[id];
    readying[id] = read(id).then(function (record) {
      return record || generate().then(function (made) { return keepFirst(id, made); });
    }).then(function (record) {
      if (record.registered) return record;
      // It may be registered already (another tab, or an answer lost on the way): the site's list says.
      return look().then(function (data) {
        // A browser's first look takes the member's devices listed before its own as known to it.
        if (!known(id)) remember(id, (data.devices || []).map(function (d) { return d.fingerprint; }));
        var there = (data.devices || []).filter(function (d) { return d.fingerprint === record.fingerprint; })[0];
        if (!there) return register(id, record);
        if (there.retired_at) throw new Error("this browser's key was retired on " + when(there.retired_at));
        remember(id, [record.fingerprint]);
        return update(id, { registered: true });
      });
    });
    readying[id].catch(function () { delete readying[id]; });
    return readying[id];
  }
  function current(userId) { return available() ? read(String(userId)).catch(function () { return null; }) : Promise.resolve(null); }

  function sign(record, text) {
    return window.crypto.subtle.sign("RSASSA-PKCS1-v1_5", record.privateKey, new TextEncoder().encode(text))
      .then(function (sig) { return toHex(new Uint8Array(sig)); });
  }

  // ---- the devices this browser knows the member has ----
  function known(userId) {
    try {
      var data = JSON.parse(window.localStorage.getItem(KNOWN + userId) || "null");
      return data && Array.isArray(data.known) ? data : null;
    } catch (e) { return null; }
  }
  function remember(userId, fingerprints) {
    var data = known(userId) || { known: [], since: new Date().toISOString() };
    fingerprints.forEach(function (fp) { if (data.known.indexOf(fp) === -1) data.known.push(fp); });
    data.looked = new Date().toISOString();
    try { window.localStorage.setItem(KNOWN + userId, JSON.stringify(data)); } catch (e) { /* storage off */ }
  }
  function isKnown(userId, fp) {
    var data = known(userId);
    return !!data && data.known.indexOf(fp) !== -1;
  }

  // Resolves to {user, devices, fresh}: "fresh" the site's devices this browser did not know. The first look
  // from a browser has nothing to compare with: what the site lists then is taken as the member's.
  function newDevices() {
    return devices().then(function (data) {
      var user = data.user, list = data.devices || [];
      if (!known(user)) {
        remember(user, list.map(function (d) { return d.fingerprint; }));
        return { user: user, devices: list, fresh: [] };
      }
      return { user: user, devices: list, fresh: list.filter(function (d) { return !isKnown(user, d.fingerprint); }) };
    });
  }

  function when(iso) {
    var d = new Date(iso);
    return isNaN(d) ? String(iso || "") : d.toLocaleString();
  }

  // Says loudly, at the top of the page, each device that appeared in the member's name unknown to this
  // browser, with a button that acknowledges it (it was the member's own, from another browser).
  function warnNewDevices() {
    if (!window.fetch) return Promise.resolve(null);
    return newDevices().then(function (seen) {
      var main = document.querySelector("main") || document.body;
      var box = document.getElementById("device-alarm");
      if (!seen.fresh.length) { if (box) box.remove(); return seen; }
      if (!box) {
        box = document.createElement("div");
        box.id = "device-alarm";
        box.className = "device-alarm";
        box.setAttribute("role", "alert");
        main.insertBefore(box, main.firstChild);
      }
      box.replaceChildren();
      var head = document.createElement("p");
      var strong = document.createElement("strong");
      strong.textContent = seen.fresh.length === 1 ? "A new device was registered in your name." :
        seen.fresh.length + " new devices were registered in your name.";
      head.appendChild(strong);
      head.appendChild(document.createTextNode(" This browser did not know " + (seen.fresh.length === 1 ? "it" : "them") +
        ". A device can sign cuts of your deals. If it was you (another browser or phone of yours), acknowledge it; " +
        "if it was not you, tell your organisers."));
      box.appendChild(head);
      var ul = document.createElement("ul");
      seen.fresh.forEach(function (d) {
        var li = document.createElement("li");
        var code = document.createElement("code");
        code.className = "fingerprint";
        code.textContent = short(d.fingerprint);
        li.appendChild(code);
        li.appendChild(document.createTextNode(" \u201C" + (d.label || "no name") + "\u201D, registered " + when(d.registered_at)));
        ul.appendChild(li);
      });
      box.appendChild(ul);
      var ack = document.createElement("button");
      ack.type = "button";
      ack.className = "secondary device-ack";
      ack.textContent = seen.fresh.length === 1 ? "It was me: acknowledge this device" : "They were mine: acknowledge them";
      ack.addEventListener("click", function () {
        remember(seen.user, seen.fresh.map(function (d) { return d.fingerprint; }));
        box.replaceChildren();
        var done = document.createElement("p");
        done.textContent = "Acknowledged: this browser now knows " + (seen.fresh.length === 1 ? "that device" : "those devices") + " as yours.";
        box.appendChild(done);
        box.className = "device-alarm acknowledged";
        box.setAttribute("role", "status");
        document.dispatchEvent(new CustomEvent("devices:acknowledged"));
      });
      box.appendChild(ack);
      return seen;
    }).catch(function () { return null; });
  }

  // ---- the profile page's "This browser" section ----
  function profile(section) {
    var out = section.querySelector(".this-browser-state");
    var button = section.querySelector("button.this-browser-register");
    function say(text, kind) { out.textContent = text; out.className = "this-browser-state " + (kind || ""); }
    function mark(fp) {
      Array.prototype.forEach.call(document.querySelectorAll("[data-fingerprint]"), function (el) {
        el.classList.toggle("this-browser", el.dataset.fingerprint === fp);
        var tag = el.querySelector(".this-browser-tag");
        if (el.dataset.fingerprint === fp && !tag) {
          tag = document.createElement("strong");
          tag.className = "this-browser-tag";
          tag.textContent = " (this browser)";
          el.appendChild(tag);
        }
      });
    }
    // The page's list of the member's devices was drawn before this one was registered: it joins it.
    function listNew(record) {
      if (document.querySelector('[data-fingerprint="' + record.fingerprint + '"]')) return;
      var list = document.getElementById("device-list");
      if (!list) return;
      if (list.tagName !== "UL") {
        var ul = document.createElement("ul");
        ul.className = "device-list";
        ul.id = "device-list";
        list.replaceWith(ul);
        list = ul;
      }
      var li = document.createElement("li");
      li.dataset.fingerprint = record.fingerprint;
      var code = document.createElement("code");
      code.textContent = short(record.fingerprint);
      li.appendChild(code);
      li.appendChild(document.createTextNode(" " + (record.label || label()) + " \u00B7 registered just now"));
      list.appendChild(li);
    }
    function show(record) {
      section.dataset.fingerprint = record.fingerprint;
      say("This browser's key: " + short(record.fingerprint) + (record.registered ? ", registered as one of your devices."
        : ", not registered yet."), "ok");
      var code = section.querySelector("code.this-browser-fingerprint");
      if (code) code.textContent = short(record.fingerprint);
      button.hidden = !!record.registered;
      mark(record.fingerprint);
    }
    if (!available()) { say("This browser cannot keep a key here (it needs a secure connection and storage), so it cannot cut your deals.", "bad"); return; }
    warnNewDevices().then(function (seen) {
      if (!seen) { say("The site did not list your devices: reload the page to try again.", "bad"); return; }
      return current(seen.user).then(function (record) {
        if (record && record.registered) { show(record); return; }
        say(record ? "This browser has a key that is not registered yet." :
          "This browser has no key of yours yet. It makes one the first time you sit at a table, or now:", "");
        button.hidden = false;
        button.addEventListener("click", function () {
          button.disabled = true;
          say("Making and registering this browser's key\u2026", "");
          ready(seen.user).then(function (made) {
            listNew(made);
            show(made);
            document.dispatchEvent(new CustomEvent("devices:registered", { detail: made.fingerprint }));
          }).catch(function (err) { button.disabled = false; say("Not registered: " + err.message, "bad"); });
        });
        button.disabled = false;  // disabled in the page until now: a click before the listener did nothing
      });
    });
  }

  window.homeClubDevice = { ready: ready, current: current, sign: sign, fingerprint: fingerprint, short: short,
                            devices: devices, look: look, isKnown: isKnown, known: known, remember: remember,
                            warnNewDevices: warnNewDevices, csrf: csrf, available: available };

  function start() {
    var section = document.getElementById("this-browser");
    if (section) profile(section);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
