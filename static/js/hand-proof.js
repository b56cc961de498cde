// The hand page's shuffle check, in the browser with WebCrypto and no library.
// It recomputes the bytes defined in engine/verify.py (scheme "merkle-sha256-v1"):
//   leaf  = SHA-256(0x00 | "home-club/deal-v1" | hand_id (8 bytes, big-endian) | position (1 byte)
//                   | card code (2 ASCII bytes) | salt (16 bytes))
//   empty = SHA-256(0x02 | tag), node = SHA-256(0x01 | left | right), 64 leaves, path of 6.
// Scheme "merkle-sha256-cut-v1" also checks each card's dealt index through the cut (cut.js, cutOrder).
// Hands of the older scheme ("deck-sha256"): SHA-256 of the deck codes joined by spaces, ":", the salt.
(function () {
  "use strict";
  var TAG = new TextEncoder().encode("home-club/deal-v1");
  var DEPTH = 6;
  var CARD = /^[23456789TJQKA][cdhs]$/;
  var SALT = /^[0-9a-f]{32}$/;
  var HASH = /^[0-9a-f]{64}$/;

  // The byte helpers are cut.js's (loaded first on the hand page).
  var bytes = window.homeClubCut.bytes;
  var concat = bytes.concat, fromHex = bytes.fromHex, toHex = bytes.toHex, sha256 = bytes.sha256;
  function u64(n) {
    var out = new Uint8Array(8);
    var big = BigInt(n);
    for (var i = 7; i >= 0; i--) { out[i] = Number(big & 255n); big >>= 8n; }
    return out;
  }

  // Resolves to true when the opening hashes up to the root; false when it does not or is malformed.
  function checkOpening(root, handId, o) {
    if (!Number.isInteger(o.position) || o.position < 0 || o.position > 51 || !CARD.test(o.card) ||
        !SALT.test(o.salt) || !Array.isArray(o.path) || o.path.length !== DEPTH ||
        !o.path.every(function (h) { return HASH.test(h); }) || !HASH.test(root)) {
      return Promise.resolve(false);
    }
    var leaf = concat([new Uint8Array([0]), TAG, u64(handId), new Uint8Array([o.position]),
                       new TextEncoder().encode(o.card), fromHex(o.salt)]);
    var step = sha256(leaf);
    o.path.forEach(function (siblingHex, level) {
      var sibling = fromHex(siblingHex);
      step = step.then(function (node) {
        var right = (o.position >> level) & 1;
        return sha256(concat([new Uint8Array([1]), right ? sibling : node, right ? node : sibling]));
      });
    });
    return step.then(function (top) { return toHex(top) === root; });
  }

  function verifyMerkle(data, out) {
    var rows = {};
    document.querySelectorAll("#openings tr[data-position]").forEach(function (tr) {
      rows[tr.dataset.position] = tr.querySelector(".check");
    });
    var seenPositions = {}, seenCards = {}, twice = [];
    data.openings.forEach(function (o) {
      if (seenPositions[o.position]) twice.push("position " + o.position);
      if (seenCards[o.card]) twice.push("card " + o.card);
      seenPositions[o.position] = seenCards[o.card] = true;
    });
    // Scheme "merkle-sha256-cut-v1": each card must also have been dealt where the public cut put it.
    var cut = data.scheme === "merkle-sha256-cut-v1";
    var ordered = cut ? window.homeClubCut.cutOrder(data.root, (data.cuts || []).map(function (c) { return c.cut; }))
                      : Promise.resolve(null);
    return ordered.then(function (order) { return Promise.all(data.openings.map(function (o) {
      return checkOpening(data.root, data.hand_id, o).then(function (ok) {
        if (order && order[o.dealt] !== o.position) ok = false;
        var cell = rows[String(o.position)];
        if (cell) { cell.textContent = ok ? "\u2713 matches" : "\u2717 does not match"; cell.className = ok ? "check ok" : "check bad"; }
        return ok;
      });
    })); }).then(function (results) {
      var bad = results.filter(function (ok) { return !ok; }).length;
      if (bad || twice.length) {
        out.textContent = "Mismatch: " + bad + " of " + results.length + " opened cards do not match the root" +
          (twice.length ? "; opened twice: " + twice.join(", ") : "") + ".";
      } else {
        out.textContent = "Verified: all " + results.length + " opened cards match the root published at the deal.";
      }
    });
  }

  function verifyDeck(data, out) {
    if (!data.deck) {
      out.textContent = "The deck of this older hand is not opened to you: there is nothing to check.";
      return Promise.resolve();
    }
    var text = data.deck.join(" ") + ":" + data.salt;
    return sha256(new TextEncoder().encode(text)).then(function (digest) {
      var hex = toHex(digest);
      out.textContent = hex === data.commitment ? "Verified: the deck and salt match the commitment." : "Mismatch: got " + hex;
    });
  }

  function start() {
    var button = document.getElementById("verify");
    var out = document.getElementById("verify-result");
    var source = document.getElementById("hand-proof");
    if (!button || !out || !source) return;
    var data = JSON.parse(source.textContent);
    button.addEventListener("click", function () {
      if (!(window.crypto && window.crypto.subtle)) { out.textContent = "This browser cannot compute SHA-256 here (it needs a secure connection)."; return; }
      out.textContent = "Checking\u2026";
      var run = data.scheme === "deck-sha256" ? verifyDeck(data, out) : verifyMerkle(data, out);
      run.catch(function (err) { out.textContent = "Could not check: " + err; });
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
