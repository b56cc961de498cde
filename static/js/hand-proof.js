// The hand page's shuffle check, in the browser with WebCrypto and no library.
// It recomputes the bytes defined in engine/verify.py (scheme "merkle-sha256-v1"):
//   leaf  = SHA-256(0x00 | "home-club/deal-v1" | hand_id (8 bytes, big-endian) | position (1 byte)
//                   | card code (2 ASCII bytes) | salt (16 bytes))
//   empty = SHA-256(0x02 | tag), node = SHA-256(0x01 | left | right), 64 leaves, path of 6.
// Scheme "merkle-sha256-cut-v1" also checks each card's dealt index through the cut (cut.js, cutOrder).
// Scheme "merkle-sha256-cut-v2" (docs/fairness.md "Protocol" 11): leaves tagged "home-club/deal-v2"; each cut's
// device fingerprint against its key (n, e), its RSASSA-PKCS1-v1_5 signature over the deal's message, the cut
// as SHA-256 of the signature, the cuts in the order of their values, each card's dealt index through them
// (cut.js, cutOrderV2), and what each opened card was dealt as (board, or the hole card of which seat) from the
// deal's layout: hole cards one at a time clockwise from the first seat after the button, then the board.
// Hands of the older scheme ("deck-sha256"): SHA-256 of the deck codes joined by spaces, ":", the salt.
(function () {
  "use strict";
  var TAG = new TextEncoder().encode("home-club/deal-v1");
  var TAG_V2 = new TextEncoder().encode("home-club/deal-v2");
  var SCHEME_V2 = "merkle-sha256-cut-v2";
  var HOLE_CARDS = { piranha: 4, piles: 5 };  // piranha.txt 2.2, piles.txt 2.1
  var MODULUS = /^[89a-f][0-9a-f]{511}$/;     // exactly 2048 bits
  var SIGNATURE = /^[0-9a-f]{512}$/;
  var CUT = /^[0-9a-f]{32}$/;
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
  function checkOpening(root, handId, o, tag) {
    if (!Number.isInteger(o.position) || o.position < 0 || o.position > 51 || !CARD.test(o.card) ||
        !SALT.test(o.salt) || !Array.isArray(o.path) || o.path.length !== DEPTH ||
        !o.path.every(function (h) { return HASH.test(h); }) || !HASH.test(root)) {
      return Promise.resolve(false);
    }
    var leaf = concat([new Uint8Array([0]), tag || TAG, u64(handId), new Uint8Array([o.position]),
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

  // ---- scheme merkle-sha256-cut-v2 ----
  function b64url(bytes) {
    var text = "";
    bytes.forEach(function (b) { text += String.fromCharCode(b); });
    return window.btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }
  function fingerprintOf(n, e) {
    return sha256(new TextEncoder().encode("home-club/device-v1\n" + n + "\n" + String(e))).then(toHex);
  }
  function signatureHolds(n, e, message, signature) {
    var jwk = { kty: "RSA", n: b64url(fromHex(n)), e: "AQAB", ext: true };
    var algorithm = { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" };
    return window.crypto.subtle.importKey("jwk", jwk, algorithm, false, ["verify"]).then(function (key) {
      return window.crypto.subtle.verify(algorithm, key, fromHex(signature), new TextEncoder().encode(message));
    });
  }
  // Resolves to the problems of one cut, in words (none: it holds).
  function checkCut(data, c) {
    var name = "cut " + (typeof c.cut === "string" ? c.cut.slice(0, 8) + "\u2026" : "?");
    if (!c || !CUT.test(c.cut) || !HASH.test(c.device) || !MODULUS.test(c.n) || c.e !== 65537 || !SIGNATURE.test(c.signature)) {
      return Promise.resolve([name + " is out of its form (cut, device, key or signature)"]);
    }
    var message = window.homeClubCut.cutMessage(data.scheme, data.table_id, data.hand_number, data.root);
    return Promise.all([
      fingerprintOf(c.n, c.e),
      signatureHolds(c.n, c.e, message, c.signature).catch(function () { return false; }),
      sha256(fromHex(c.signature)).then(function (d) { return toHex(d.slice(0, 16)); })
    ]).then(function (got) {
      var problems = [];
      if (got[0] !== c.device) problems.push(name + ": its device fingerprint is not that of its key");
      if (!got[1]) problems.push(name + ": its signature does not sign deal " + data.hand_number + " of table " + data.table_id + " with this root and scheme");
      if (got[2] !== c.cut) problems.push(name + ": it is not SHA-256 of its signature");
      return problems;
    });
  }
  // What the card dealt ``dealt``-th becomes: {as: "hole", seat} or {as: "board", seat: null}.
  function layout(data, dealt) {
    var ring = (data.seats || []).map(function (s) { return s.seat; }).sort(function (a, b) { return a - b; });
    var start = ring.findIndex(function (s) { return s > data.button; });
    if (start < 0) start = 0;
    var order = ring.slice(start).concat(ring.slice(0, start));
    var hole = HOLE_CARDS[data.game];
    if (dealt >= 0 && dealt < hole * order.length) return { as: "hole", seat: order[dealt % order.length] };
    return { as: "board", seat: null };
  }

  function verifyV2(data, out) {
    var rows = {};
    document.querySelectorAll("#openings tr[data-position]").forEach(function (tr) {
      rows[tr.dataset.position] = tr.querySelector(".check");
    });
    var problems = [];
    if (!Number.isSafeInteger(data.table_id) || !Number.isInteger(data.hand_number) || !HASH.test(data.root) ||
        !Array.isArray(data.cuts) || !Array.isArray(data.openings) || !Array.isArray(data.seats) ||
        !Number.isInteger(data.button) || !HOLE_CARDS[data.game]) {
      out.textContent = "Mismatch: the proof is out of its form (table, deal, root, seats, button, game, cuts or openings).";
      return Promise.resolve();
    }
    var cuts = data.cuts.map(function (c) { return c.cut; });
    for (var i = 1; i < cuts.length; i++) {
      if (!(cuts[i - 1] < cuts[i])) { problems.push("the cuts are not in the order of their values"); break; }
    }
    var seen = { positions: {}, cards: {} };
    data.openings.forEach(function (o) {
      if (seen.positions[o.position]) problems.push("position " + o.position + " is opened twice");
      if (seen.cards[o.card]) problems.push("card " + o.card + " is opened at two positions");
      seen.positions[o.position] = seen.cards[o.card] = true;
    });
    var cutChecks = Promise.all(data.cuts.map(function (c) { return checkCut(data, c); }));
    var ordered = cutChecks.then(function (each) {
      each.forEach(function (list, k) {
        problems.push.apply(problems, list);
        var cell = document.querySelector('#proof-cuts [data-cut="' + cuts[k] + '"] .check');
        if (cell) { cell.textContent = list.length ? "\u2717 " + list.join("; ") : "\u2713 signed by its device"; cell.className = list.length ? "check bad" : "check ok"; }
      });
      return window.homeClubCut.cutOrderV2(data.root, data.table_id, data.hand_number, cuts);
    });
    return ordered.then(function (order) {
      return Promise.all(data.openings.map(function (o) {
        return checkOpening(data.root, data.hand_id, o, TAG_V2).then(function (ok) {
          var why = [];
          if (!ok) why.push("does not match the root");
          if (!Number.isInteger(o.dealt) || o.dealt < 0 || o.dealt > 51 || order[o.dealt] !== o.position) why.push("was not dealt at " + o.dealt + " by the cuts");
          else {
            var is = layout(data, o.dealt);
            var seat = o.seat === undefined ? null : o.seat;
            if (o.opened_as !== is.as || seat !== is.seat) {
              why.push("is shown as " + (o.opened_as === "hole" ? "a hole card of seat " + seat : String(o.opened_as)) + ", but the deal made it " +
                (is.as === "hole" ? "a hole card of seat " + is.seat : "a board card"));
            }
          }
          var cell = rows[String(o.position)];
          if (cell) { cell.textContent = why.length ? "\u2717 " + why.join("; ") : "\u2713 matches"; cell.className = why.length ? "check bad" : "check ok"; }
          why.forEach(function (w) { problems.push("position " + o.position + " (" + o.card + ") " + w); });
          return !why.length;
        });
      }));
    }).then(function (results) {
      if (problems.length) {
        out.textContent = "Mismatch: " + problems.join("; ") + ".";
        return;
      }
      var members = {};
      data.cuts.forEach(function (c) { members[c.member] = true; });
      var m = Object.keys(members).length;
      out.textContent = "Verified: all " + results.length + " opened cards match the root published before the deal, " +
        (cuts.length ? "dealt through " + cuts.length + " cut" + (cuts.length === 1 ? "" : "s") + " from " +
          (m === 1 ? "1 member's" : m + " members'") + " devices, each signature checked."
          : "and no member's cut reached this deal: the club's server chose its order.");
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
      var run = data.scheme === "deck-sha256" ? verifyDeck(data, out)
        : data.scheme === SCHEME_V2 ? verifyV2(data, out)
        : data.scheme === "merkle-sha256-v1" || data.scheme === "merkle-sha256-cut-v1" ? verifyMerkle(data, out)
        : Promise.resolve(out.textContent = "Mismatch: this browser does not know the scheme " + JSON.stringify(data.scheme) + ".");
      run.catch(function (err) { out.textContent = "Could not check: " + err; });
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
