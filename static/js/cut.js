// The cut, in the browser (engine/verify.py has the bytes; games/services/cuts.py the server's side).
// On a table page where this member is seated: for each coming deal whose root is published, a random
// 128-bit cut from WebCrypto goes over the table's socket; the site's receipt is kept in local storage with
// the cut. On a hand's page: the cuts this browser made of that deal (by its root) must be among the cuts
// the hand lists, or the page says loudly that one was left out. cutOrder is the public shuffle:
//   seed    = SHA-256(0x03 | "home-club/cut-v1" | root (32 bytes) | number of cuts (2 bytes) | cuts (16 bytes each))
//   block_j = SHA-256(0x04 | "home-club/cut-v1" | seed | j (4 bytes)); 32-bit big-endian words, in order
//   order   = [0..51]; for i = 51 down to 1: skip words >= 2^32 - 2^32 mod (i+1); k = w mod (i+1); swap i, k
(function () {
  "use strict";
  var TAG = new TextEncoder().encode("home-club/cut-v1");
  var HEX32 = /^[0-9a-f]{32}$/;
  var HEX64 = /^[0-9a-f]{64}$/;
  var STORE = "home-club-cuts";

  function concat(parts) {
    var size = parts.reduce(function (n, p) { return n + p.length; }, 0);
    var out = new Uint8Array(size), at = 0;
    parts.forEach(function (p) { out.set(p, at); at += p.length; });
    return out;
  }
  function fromHex(hex) {
    var out = new Uint8Array(hex.length / 2);
    for (var i = 0; i < out.length; i++) out[i] = parseInt(hex.substr(2 * i, 2), 16);
    return out;
  }
  function toHex(bytes) {
    return Array.from(bytes).map(function (b) { return b.toString(16).padStart(2, "0"); }).join("");
  }
  function sha256(bytes) {
    return window.crypto.subtle.digest("SHA-256", bytes).then(function (d) { return new Uint8Array(d); });
  }
  function be(n, size) {
    var out = new Uint8Array(size);
    for (var i = size - 1; i >= 0; i--) { out[i] = n & 255; n = Math.floor(n / 256); }
    return out;
  }

  // Resolves to the committed position of each card in the order dealt.
  function cutOrder(root, cuts) {
    if (!HEX64.test(root) || !cuts.every(function (c) { return HEX32.test(c); }) || cuts.length > 65535) {
      return Promise.reject(new Error("a root or a cut is out of its form"));
    }
    var seedBytes = concat([new Uint8Array([3]), TAG, fromHex(root), be(cuts.length, 2)].concat(cuts.map(fromHex)));
    return sha256(seedBytes).then(function (seed) {
      var words = [], counter = 0;
      function more() {
        return sha256(concat([new Uint8Array([4]), TAG, seed, be(counter++, 4)])).then(function (block) {
          var view = new DataView(block.buffer);
          for (var at = 0; at < 32; at += 4) words.push(view.getUint32(at, false));
        });
      }
      var order = [], i;
      for (i = 0; i < 52; i++) order.push(i);
      var top = 51, next = 0;
      function step() {
        while (top >= 1) {
          if (next >= words.length) return more().then(step);
          var span = top + 1, fair = 4294967296 - (4294967296 % span), w = words[next++];
          if (w >= fair) continue;
          var k = w % span, t = order[top];
          order[top] = order[k]; order[k] = t;
          top--;
        }
        return order;
      }
      return step();
    });
  }

  function stored() {
    try { return JSON.parse(window.localStorage.getItem(STORE) || "{}") || {}; } catch (e) { return {}; }
  }
  function keep(receipt) {
    var all = stored();
    var list = all[receipt.root] || [];
    if (!list.some(function (r) { return r.cut === receipt.cut; })) list.push(receipt);
    all[receipt.root] = list;
    try { window.localStorage.setItem(STORE, JSON.stringify(all)); } catch (e) { /* storage full or off */ }
  }

  // Table page: cut every coming deal this browser has not cut yet.
  function startCutting(section) {
    var tableId = section.dataset.tableId;
    var waiting = {};
    function mark(deal, text) {
      var li = section.querySelector('li[data-deal="' + deal + '"] .cut-state');
      if (li) li.textContent = text;
    }
    function answered(data) {
      if (data.type === "cut.ok" && data.receipt && waiting[data.receipt.deal] === data.receipt.cut) {
        keep(data.receipt);
        delete waiting[data.receipt.deal];
        mark(data.receipt.deal, "you cut it (receipt kept in this browser)");
      } else if (data.type === "cut.refused") {
        if (data.deal !== null) delete waiting[data.deal];
      }
    }
    var live = window.tableLive;
    if (live && live.listen) live.listen(answered);
    // Over the table's own socket (static/js/table.js): no second socket per member. While it is not
    // open yet (the page just loaded, or it is reconnecting), the cut waits and is sent again.
    function send(deal, cut) {
      var message = { type: "cut", deal: deal, cut: cut };
      if (live && live.send && live.send(message)) return;
      window.setTimeout(function () { if (waiting[deal] === cut) send(deal, cut); }, 1000);
    }
    function poll() {
      if (document.hidden) return;
      fetch("/tables/" + tableId + "/cut/", { credentials: "same-origin", cache: "no-store" })
        .then(function (r) { return r.ok ? r.json() : { deals: [] }; })
        .then(function (data) {
          var mine = stored();
          (data.deals || []).forEach(function (d) {
            if (!HEX64.test(d.root) || (mine[d.root] && mine[d.root].length) || waiting[d.deal]) return;
            var cut = toHex(window.crypto.getRandomValues(new Uint8Array(16)));
            waiting[d.deal] = cut;
            send(d.deal, cut);
          });
        }).catch(function () { /* the next poll tries again */ });
    }
    poll();
    window.setInterval(poll, 15000);  // a root is published a deal ahead, so this is soon enough
    document.addEventListener("visibilitychange", poll);
  }

  // Hand page: were this browser's acknowledged cuts of that deal all used?
  function checkOwnCuts(data) {
    var out = document.getElementById("cut-check");
    if (!out || data.scheme !== "merkle-sha256-cut-v1") return;
    var mine = stored()[data.root] || [];
    var used = {};
    (data.cuts || []).forEach(function (c) { used[c.cut] = true; });
    var missing = mine.filter(function (r) { return !used[r.cut]; });
    if (missing.length) {
      out.hidden = false;
      out.className = "cut-alarm";
      out.textContent = "Warning: the site acknowledged " + (missing.length === 1 ? "your cut " : "your cuts ") +
        missing.map(function (r) { return r.cut + " (received " + r.at + ")"; }).join(", ") +
        " of this deal, but the hand was dealt without " + (missing.length === 1 ? "it" : "them") +
        ". Tell the organisers.";
    } else if (mine.length) {
      out.hidden = false;
      out.className = "cut-ok";
      out.textContent = "Your " + (mine.length === 1 ? "cut was" : mine.length + " cuts were") + " used in this deal.";
    }
  }

  function start() {
    var section = document.getElementById("coming-deals");
    if (section && section.dataset.seated && window.crypto && window.crypto.getRandomValues) startCutting(section);
    var source = document.getElementById("hand-proof");
    if (source) checkOwnCuts(JSON.parse(source.textContent));
  }

  window.homeClubCut = { cutOrder: cutOrder, stored: stored,
                         bytes: { concat: concat, fromHex: fromHex, toHex: toHex, sha256: sha256 } };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
