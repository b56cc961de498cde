// The cut, in the browser (docs/fairness.md "Protocol"; engine/verify.py has the bytes).
// Table page: the coming deals, live (a dealt deal leaves the list when its frame comes). For each coming deal
// whose list is open, a seated member's browser signs
//     "home-club/cut-v2\n<scheme>\n<table id>\n<deal>\n<root>"
// with its device key (static/js/device.js) and sends the signature over the table's socket; the cut is
// SHA-256(signature)[:16], which neither the server can compute nor the member choose. The site's receipt
// is kept in local storage by (table, deal); a refused cut is shown with the site's reason. A closed list is
// shown before its deal, this browser's own cut marked in it.
// Table page, hand page and hand history: each deal this browser cut is checked against what the site now
// shows (GET /tables/ID/cuts/): its cut missing, a cut in the member's name from a device this browser does
// not know, another root or scheme. Each is said loudly with the evidence, and one click sends a complaint.
// cutOrder (v1) and cutOrderV2 are the public shuffle of the deck by the root and the cuts:
//   seed    = SHA-256(0x03 | tag | root (32 bytes) [| table id (8 bytes) | deal (4 bytes), v2] | number of cuts
//             (2 bytes) | cuts (16 bytes each)); tag "home-club/cut-v1" or "home-club/cut-v2"
//   block_j = SHA-256(0x04 | tag | seed | j (4 bytes)); 32-bit big-endian words, in order
//   order   = [0..51]; for i = 51 down to 1: skip words >= 2^32 - 2^32 mod (i+1); k = w mod (i+1); swap i, k
(function () {
  "use strict";
  var TAG_V1 = new TextEncoder().encode("home-club/cut-v1");
  var TAG_V2 = new TextEncoder().encode("home-club/cut-v2");
  var SCHEME_V1 = "merkle-sha256-cut-v1", SCHEME_V2 = "merkle-sha256-cut-v2";
  var HEX32 = /^[0-9a-f]{32}$/;
  var HEX64 = /^[0-9a-f]{64}$/;
  var STORE_V1 = "home-club-cuts";        // cuts of the first scheme, by root (kept for their hand pages)
  var STORE = "home-club-cuts-v2";        // {"<table>:<deal>": receipt + {user}}
  var SENT = "home-club-cut-complaints";  // {"<table>:<deal>:<kind>": {id, message, at}}

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
    for (var i = size - 1; i >= 0; i--) { out[i] = n % 256; n = Math.floor(n / 256); }
    return out;
  }

  function shuffle(tag, seedBytes) {
    return sha256(seedBytes).then(function (seed) {
      var words = [], counter = 0;
      function more() {
        return sha256(concat([new Uint8Array([4]), tag, seed, be(counter++, 4)])).then(function (block) {
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
  function formed(root, cuts) {
    return HEX64.test(root) && Array.isArray(cuts) && cuts.length <= 65535 && cuts.every(function (c) { return HEX32.test(c); });
  }
  // Resolves to the committed position of each card in the order dealt (scheme merkle-sha256-cut-v1).
  function cutOrder(root, cuts) {
    if (!formed(root, cuts)) return Promise.reject(new Error("a root or a cut is out of its form"));
    return shuffle(TAG_V1, concat([new Uint8Array([3]), TAG_V1, fromHex(root), be(cuts.length, 2)].concat(cuts.map(fromHex))));
  }
  // The same for scheme merkle-sha256-cut-v2, whose seed also binds the table and the deal.
  function cutOrderV2(root, tableId, deal, cuts) {
    if (!formed(root, cuts) || !Number.isSafeInteger(tableId) || tableId < 0 || !Number.isInteger(deal) || deal < 0 || deal >= 4294967296) {
      return Promise.reject(new Error("a root, table, deal or cut is out of its form"));
    }
    return shuffle(TAG_V2, concat([new Uint8Array([3]), TAG_V2, fromHex(root), be(tableId, 8), be(deal, 4),
                                   be(cuts.length, 2)].concat(cuts.map(fromHex))));
  }
  // The text a device signs for one deal, and the cut its signature makes.
  function cutMessage(scheme, tableId, deal, root) {
    return ["home-club/cut-v2", scheme, String(tableId), String(deal), root].join("\n");
  }
  function cutValue(signatureHex) {
    return sha256(fromHex(signatureHex)).then(function (d) { return toHex(d.slice(0, 16)); });
  }

  // ---- receipts, in this browser ----
  function readStore(name) {
    try { return JSON.parse(window.localStorage.getItem(name) || "{}") || {}; } catch (e) { return {}; }
  }
  function writeStore(name, all) {
    try { window.localStorage.setItem(name, JSON.stringify(all)); } catch (e) { /* storage full or off */ }
  }
  function stored() { return readStore(STORE); }
  var KEEP_MAX = 1000;  // receipts kept: the oldest go first (each was checked on the visits since it was kept)
  function keep(receipt, user) {
    var all = stored();
    all[receipt.table + ":" + receipt.deal] = Object.assign({}, receipt, { user: user });
    var keys = Object.keys(all);
    if (keys.length > KEEP_MAX) {
      keys.sort(function (a, b) { return String(all[a].at) < String(all[b].at) ? -1 : 1; });
      keys.slice(0, keys.length - KEEP_MAX).forEach(function (k) { delete all[k]; });
    }
    writeStore(STORE, all);
  }
  function receiptsOf(tableId, user) {
    var all = stored(), out = [];
    Object.keys(all).forEach(function (key) {
      var r = all[key];
      if (r && String(r.table) === String(tableId) && String(r.user) === String(user)) out.push(r);
    });
    return out.sort(function (a, b) { return a.deal - b.deal; });
  }

  function device() { return window.homeClubDevice; }
  function short(fp) { return device() ? device().short(fp) : String(fp || "").slice(0, 16); }
  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function when(iso) {
    var d = new Date(iso);
    return iso && !isNaN(d) ? d.toLocaleString() : String(iso || "");
  }
  function postJson(url, body) {
    return fetch(url, {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": device() ? device().csrf() : "" },
      body: JSON.stringify(body)
    }).then(function (r) {
      return r.json().catch(function () { return {}; }).then(function (data) { return { status: r.status, data: data }; });
    });
  }

  // ---- loud words at the top of the page: what this browser found wrong, each with a complaint ----
  function alarms() {
    var box = document.getElementById("cut-alarms");
    if (!box) {
      var main = document.querySelector("main") || document.body;
      box = el("div", "cut-alarms");
      box.id = "cut-alarms";
      var after = document.getElementById("device-alarm");
      main.insertBefore(box, after ? after.nextSibling : main.firstChild);
    }
    return box;
  }
  function evidenceList(evidence) {
    var dl = el("dl", "cut-evidence");
    Object.keys(evidence).forEach(function (k) {
      dl.appendChild(el("dt", "", k));
      var dd = el("dd");
      dd.appendChild(el("code", "hash", typeof evidence[k] === "string" ? evidence[k] : JSON.stringify(evidence[k])));
      dl.appendChild(dd);
    });
    return dl;
  }
  // The one-click complaint (protocol 10) about (table, deal, kind): a button, then what the site answered;
  // a complaint sent is remembered, and said instead of the button on later visits.
  function complaint(tableId, deal, kind, evidence, label) {
    var key = tableId + ":" + deal + ":" + kind;
    var row = el("p", "cut-complaint");
    var sent = readStore(SENT)[key];
    var out = el("span", "cut-complaint-result");
    out.setAttribute("role", "status");
    if (sent) {
      out.textContent = "You told the organisers on " + when(sent.at) + ": " + sent.message;
    } else {
      var button = el("button", (kind === "refused" ? "secondary" : "danger") + " cut-complain", label);
      button.type = "button";
      button.addEventListener("click", function () {
        button.disabled = true;
        out.textContent = "Sending\u2026";
        postJson("/tables/" + tableId + "/cut-complaints/", { deal: deal, kind: kind, evidence: evidence }).then(function (a) {
          if (a.status !== 201) throw new Error(a.data.error || "the site answered " + a.status);
          var all = readStore(SENT);
          all[key] = { id: a.data.id, message: a.data.message || "complaint received", at: new Date().toISOString() };
          writeStore(SENT, all);
          button.remove();
          out.textContent = "Sent: " + (a.data.message || "the organisers have your complaint") +
            (a.data.id ? " (complaint " + a.data.id + ")" : "");
        }).catch(function (err) {
          button.disabled = false;
          out.textContent = "Not sent: " + err.message + ". Try again, or tell an organiser yourself.";
        });
      });
      row.appendChild(button);
      row.appendChild(document.createTextNode(" "));
    }
    row.appendChild(out);
    return row;
  }
  // One alarm per (table, deal, kind). ``shown`` is the evidence in words for the page; ``evidence`` what the
  // complaint carries (the receipt and what the site shows).
  function alarm(tableId, deal, kind, words, shown, evidence) {
    var key = tableId + ":" + deal + ":" + kind;
    var box = alarms();
    if (box.querySelector('[data-alarm="' + key + '"]')) return;
    var div = el("div", "cut-alarm");
    div.dataset.alarm = key;
    div.dataset.kind = kind;
    div.setAttribute("role", "alert");
    div.appendChild(el("p", "cut-alarm-words", words));
    var details = el("details", "cut-alarm-evidence");
    details.open = true;
    details.appendChild(el("summary", "", "The evidence"));
    details.appendChild(evidenceList(shown));
    div.appendChild(details);
    div.appendChild(complaint(tableId, deal, kind, evidence, "Tell the organisers: send this as a complaint"));
    box.appendChild(div);
  }
  function clearAlarms(kind) {
    var box = document.getElementById("cut-alarms");
    if (!box) return;
    Array.prototype.forEach.call(box.querySelectorAll('[data-kind="' + kind + '"]'), function (d) { d.remove(); });
  }

  // ---- the checks (protocol 9): every deal this browser cut, against what the site shows now ----
  // The closed lists from deal ``since`` on, page after page (the site answers at most ``max`` a time).
  function cutHistory(tableId, since) {
    var all = [];
    function page(from, left) {
      return fetch("/tables/" + tableId + "/cuts/?since=" + from, { credentials: "same-origin", cache: "no-store" })
        .then(function (r) { if (!r.ok) throw new Error("history " + r.status); return r.json(); })
        .then(function (data) {
          var deals = data.deals || [];
          all = all.concat(deals);
          var more = data.max && deals.length >= data.max && left > 1;
          return more ? page(deals[deals.length - 1].deal + 1, left - 1) : all;
        });
    }
    return page(since, 50);
  }
  function checkTable(tableId) {
    var dev = device();
    if (!dev || !window.fetch) return Promise.resolve(null);
    return dev.devices().then(function (listed) {
      var user = listed.user;
      var mine = receiptsOf(tableId, user);
      if (!mine.length) return { user: user, deals: [], receipts: [] };
      return dev.current(user).then(function (record) {
        return cutHistory(tableId, mine[0].deal).then(function (deals) {
            var own = record ? record.fingerprint : null;
            var byDeal = {}, last = 0;
            deals.forEach(function (d) { byDeal[d.deal] = d; last = Math.max(last, d.deal); });
            clearAlarms("unknown-device");
            mine.forEach(function (r) {
              var d = byDeal[r.deal];
              var receipt = { deal: r.deal, root: r.root, scheme: r.scheme, cut: r.cut, device: short(r.device),
                              "received at": r.at, "receipt id": String(r.id) };
              if (!d) {
                if (r.deal < last) {
                  alarm(tableId, r.deal, "missing", "The site acknowledged your cut of deal " + r.deal +
                    ", but it no longer lists that deal at all. Tell the organisers.", receipt,
                    { receipt: r, shown: { deals: deals.map(function (x) { return x.deal; }) } });
                }
                return;
              }
              if (d.root !== r.root || d.scheme !== r.scheme) {
                alarm(tableId, r.deal, "other-root", "Deal " + r.deal + " was not the deal you cut: your browser signed root " +
                  r.root.slice(0, 16) + "\u2026 under " + r.scheme + ", and the site now shows root " +
                  String(d.root).slice(0, 16) + "\u2026 under " + d.scheme + ". Tell the organisers.",
                  Object.assign({}, receipt, { "the site's root": d.root, "the site's scheme": d.scheme }),
                  { receipt: r, shown: d });
              } else if (!(d.cuts || []).some(function (c) { return c.cut === r.cut && c.device === r.device; })) {
                // Listed means its list is closed: a cut left out of it is left out of the deal.
                alarm(tableId, r.deal, "missing", "Warning: the site acknowledged your cut " + r.cut + " of deal " + r.deal +
                  " (received " + when(r.at) + "), but " + (d.dealt ? "the deal was dealt without it" :
                  "its closed list leaves it out") + ". Tell the organisers.",
                  Object.assign({}, receipt, { "cuts used": (d.cuts || []).map(function (c) { return c.cut; }).join(", ") || "none" }),
                  { receipt: r, shown: d });
              }
            });
            deals.forEach(function (d) {
              (d.cuts || []).forEach(function (c) {
                if (String(c.member_id) !== String(user) || c.device === own || dev.isKnown(user, c.device)) return;
                alarm(tableId, d.deal, "unknown-device", "A cut of deal " + d.deal + " was made in your name from a device " +
                  "this browser does not know (" + short(c.device) + "). If that device is not yours, someone else " +
                  "cut your deal: tell the organisers. If it is yours, acknowledge it on your profile page.",
                  { deal: d.deal, cut: c.cut, "its device": short(c.device), "its device in full": c.device,
                    "this browser's device": own ? short(own) : "none", "root": d.root },
                  { receipt: receiptsOf(tableId, user).filter(function (r) { return r.deal === d.deal; })[0] || null,
                    shown: d, device: c.device });
              });
            });
            return { user: user, deals: deals, receipts: mine, own: own };
          });
      });
    }).catch(function () { return null; });
  }

  // ---- the table page: the live list of coming deals, and this browser's cuts of them ----
  function startTable(section) {
    var tableId = Number(section.dataset.tableId);
    var list = section.querySelector("#cut-deals") || section;
    var live = window.tableLive;
    var waiting = {};   // deal -> {cut, device}: signed and sent, no answer yet
    var refused = {};   // deal -> the site's words
    var refusedEvidence = {}, controls = {};  // deal -> what a complaint of the refusal carries, its control
    var problem = null; // why this browser cannot cut (no key, refused registration, ...)
    var last = null;    // the last answer of GET /tables/ID/cut/

    function seated() {
      return section.dataset.seated === "1" || !!document.querySelector("#table-live li.seat.me");
    }

    function render() {
      if (!last) return;
      var mine = last.user === null || last.user === undefined ? [] : receiptsOf(tableId, last.user);
      var byDeal = {};
      mine.forEach(function (r) { byDeal[r.deal] = r; });
      var deals = last.deals || [];
      var wrap = el("div");
      if (!deals.length) {
        wrap.appendChild(el("p", "small muted", "No deal is waiting to be cut."));
      } else {
        var ul = el("ul", "roots");
        deals.forEach(function (d) {
          var li = el("li");
          li.dataset.deal = d.deal;
          li.dataset.root = d.root;
          li.dataset.status = d.status;
          li.appendChild(document.createTextNode("Deal " + d.deal + ": root "));
          li.appendChild(el("code", "hash", d.root));
          li.appendChild(document.createTextNode(" \u00B7 "));
          li.appendChild(el("span", "cut-closes", d.closes || (d.status === "open" ? "Its list is open." : "Its list is closed.")));
          if (d.waits_until) {
            li.appendChild(document.createTextNode(" \u00B7 "));
            li.appendChild(el("strong", "cut-wait", "waits for a cut (house rule) until " + when(d.waits_until) + ", then is dealt without one"));
          }
          if (seated() || byDeal[d.deal]) {
            // data-state: "cut", "refused", "sending", "cannot" (no key), "open" (not sent yet), "missed"
            var state = byDeal[d.deal] ? ["cut", "your browser cut it (receipt kept in this browser)"]
              : refused[d.deal] ? ["refused", "your cut was refused: " + refused[d.deal]]
              : waiting[d.deal] ? ["sending", "signing and sending your cut\u2026"]
              : d.status !== "open" || d.scheme !== SCHEME_V2 ? ["missed", "you did not cut it"]
              : problem ? ["cannot", "this browser cannot cut: " + problem] : ["open", "not cut by you yet"];
            li.appendChild(document.createTextNode(" \u00B7 "));
            var span = el("span", "cut-state" + (state[0] === "refused" || state[0] === "cannot" ? " refused" : ""), state[1]);
            span.dataset.state = state[0];
            li.appendChild(span);
            // A refusal is most often a rule at work (a new device cuts from a later deal on): said plainly in
            // its row, with the site's reason and a complaint at hand should it be wrong.
            if (refused[d.deal] && refusedEvidence[d.deal]) {
              controls[d.deal] = controls[d.deal] || complaint(tableId, d.deal, "refused", refusedEvidence[d.deal],
                                                               "This is wrong: tell the organisers");
              li.appendChild(controls[d.deal]);
            }
          }
          if (d.status === "closed") {
            var cuts = d.cuts || [];
            li.appendChild(document.createTextNode(" "));
            if (!cuts.length) {
              li.appendChild(el("span", "cut-list-words", "No member's cut reached it: the club's server chose its order."));
            } else {
              li.appendChild(el("span", "cut-list-words", "It is dealt through " + cuts.length + " cut" +
                (cuts.length === 1 ? "" : "s") + ", in the order of their values:"));
              var ol = el("ol", "cut-list");
              cuts.forEach(function (c) {
                var item = el("li");
                item.dataset.cut = c.cut;
                item.appendChild(el("code", "hash", c.cut));
                item.appendChild(document.createTextNode(" by " + c.member + ", device "));
                item.appendChild(el("code", "fingerprint", short(c.device)));
                var r = byDeal[d.deal];
                if (r && r.cut === c.cut && r.device === c.device) {
                  item.className = "mine";
                  item.appendChild(el("strong", "cut-mine", " \u2190 your cut, from this browser"));
                }
                ol.appendChild(item);
              });
              li.appendChild(ol);
            }
          }
          ul.appendChild(li);
        });
        wrap.appendChild(ul);
      }
      list.replaceChildren.apply(list, Array.prototype.slice.call(wrap.childNodes));
      list.dataset.rendered = "1";
    }

    function answered(data) {
      if (data.type === "cut.ok" && data.receipt) {
        var r = data.receipt, w = waiting[r.deal];
        if (!w || String(r.table) !== String(tableId)) return;
        delete waiting[r.deal];
        if (r.device !== w.device || r.cut !== w.cut || r.root !== w.root || r.scheme !== w.scheme) {
          refused[r.deal] = "the site's receipt does not match what this browser signed";
          alarm(tableId, r.deal, "other-root", "The site's receipt for your cut of deal " + r.deal +
            " does not match what this browser signed. Tell the organisers.",
            { "signed root": w.root, "signed scheme": w.scheme, "your cut": w.cut, "receipt": JSON.stringify(r) },
            { receipt: r, signed: w });
        } else {
          keep(r, last.user);
        }
        render();
      } else if (data.type === "cut.refused") {
        var deal = data.deal;
        var words = data.error || "the site refused it without a reason";
        if (deal !== null && deal !== undefined && waiting[deal]) {
          var signed = waiting[deal];
          delete waiting[deal];
          refused[deal] = words;
          refusedEvidence[deal] = { signed: signed, error: words };
        } else {
          problem = words;
        }
        render();
      } else if (/^(cut|cuts|deals)\b/.test(String(data.type || ""))) {
        refresh();
      }
    }
    if (live && live.listen) live.listen(answered);

    // Over the table's own socket (static/js/table.js): no second socket per member. While it is not open
    // (the page just loaded, or it is reconnecting), the cut waits and is sent again; without the socket
    // script it is posted.
    function send(deal, message, tries) {
      if (!waiting[deal]) return;
      if (live && live.send && live.send(message)) return;
      if (!live || tries >= 10) {
        postJson("/tables/" + tableId + "/cut/", message).then(function (a) { answered(a.data); })
          .catch(function () { window.setTimeout(function () { send(deal, message, 0); }, 5000); });
        return;
      }
      window.setTimeout(function () { send(deal, message, tries + 1); }, 1000);
    }

    function cutOpenDeals() {
      if (!last || last.user === null || last.user === undefined || !seated() || problem) return;
      if (!device()) { problem = "the page's key script did not load: reload the page"; render(); return; }
      var mine = {};
      receiptsOf(tableId, last.user).forEach(function (r) { mine[r.deal] = true; });
      var open = (last.deals || []).filter(function (d) {
        return d.status === "open" && d.scheme === SCHEME_V2 && HEX64.test(d.root) && !mine[d.deal] && !waiting[d.deal] && !refused[d.deal];
      });
      if (!open.length) return;
      open.forEach(function (d) { waiting[d.deal] = { pending: true }; });
      render();
      device().ready(last.user).then(function (record) {
        open.forEach(function (d) {
          device().sign(record, cutMessage(d.scheme, tableId, d.deal, d.root)).then(function (signature) {
            return cutValue(signature).then(function (cut) {
              waiting[d.deal] = { cut: cut, device: record.fingerprint, root: d.root, scheme: d.scheme, signature: signature };
              send(d.deal, { type: "cut", deal: d.deal, device: record.fingerprint, signature: signature }, 0);
            });
          }).catch(function (err) { delete waiting[d.deal]; refused[d.deal] = "this browser could not sign it (" + err.message + ")"; render(); });
        });
        device().warnNewDevices();
      }).catch(function (err) {
        open.forEach(function (d) { delete waiting[d.deal]; });
        problem = err.message;
        render();
      });
    }

    var busy = false, again = false;
    function refresh() {
      if (busy) { again = true; return; }
      busy = true;
      fetch("/tables/" + tableId + "/cut/", { credentials: "same-origin", cache: "no-store" })
        .then(function (r) { if (!r.ok) throw new Error(String(r.status)); return r.json(); })
        .then(function (data) {
          last = data;
          render();
          cutOpenDeals();
        })
        .catch(function () { /* the next frame or poll tries again */ })
        .then(function () { busy = false; if (again) { again = false; refresh(); } });
    }

    // A new hand (or a seat taken) comes as a frame of the table's socket: the list follows it at once.
    var shownHand = null;
    document.addEventListener("table:area", function (event) {
      var hand = event.detail ? event.detail.hand : null;
      // (and a list that closed may now be checked against this browser's receipts)
      if (hand !== shownHand) { var first = shownHand === null; shownHand = hand; refresh(); if (!first) checkTable(tableId); }
      else if (seated() && last && (last.deals || []).some(function (d) { return d.status === "open" && !receiptsOf(tableId, last.user).some(function (r) { return r.deal === d.deal; }); })) cutOpenDeals();
    });
    document.addEventListener("visibilitychange", function () { if (!document.hidden) refresh(); });
    window.setInterval(function () { if (!document.hidden) refresh(); }, 15000);
    refresh();
  }

  // ---- a hand's page: this browser's cut of its deal, from the proof the page carries ----
  function checkHand(data, tableId) {
    var out = document.getElementById("cut-check");
    if (data.scheme === SCHEME_V1) {
      if (!out) return;
      var old = readStore(STORE_V1)[data.root] || [];
      var used = {};
      (data.cuts || []).forEach(function (c) { used[c.cut] = true; });
      var missing = old.filter(function (r) { return !used[r.cut]; });
      if (missing.length) {
        out.hidden = false;
        out.className = "cut-alarm";
        out.textContent = "Warning: the site acknowledged " + (missing.length === 1 ? "your cut " : "your cuts ") +
          missing.map(function (r) { return r.cut + " (received " + r.at + ")"; }).join(", ") +
          " of this deal, but the hand was dealt without " + (missing.length === 1 ? "it" : "them") + ". Tell the organisers.";
      } else if (old.length) {
        out.hidden = false;
        out.className = "cut-ok";
        out.textContent = "Your " + (old.length === 1 ? "cut was" : old.length + " cuts were") + " used in this deal.";
      }
      return;
    }
    var dev = device();
    if (!dev || !tableId) return;
    dev.devices().then(function (listed) {
      var r = stored()[tableId + ":" + data.hand_number];
      if (!r || String(r.user) !== String(listed.user)) return;
      var receipt = { deal: r.deal, root: r.root, scheme: r.scheme, cut: r.cut, device: short(r.device), "received at": r.at };
      if (data.root !== r.root || data.scheme !== r.scheme) {
        alarm(tableId, r.deal, "other-root", "This hand was not dealt from the deal you cut: your browser signed root " +
          r.root.slice(0, 16) + "\u2026 under " + r.scheme + ", and this hand shows root " + String(data.root).slice(0, 16) +
          "\u2026 under " + data.scheme + ". Tell the organisers.",
          Object.assign({}, receipt, { "this hand's root": data.root, "this hand's scheme": data.scheme }),
          { receipt: r, shown: { hand_id: data.hand_id, root: data.root, scheme: data.scheme, cuts: data.cuts } });
      } else if (!(data.cuts || []).some(function (c) { return c.cut === r.cut && c.device === r.device; })) {
        alarm(tableId, r.deal, "missing", "Warning: the site acknowledged your cut " + r.cut + " of this deal (received " +
          when(r.at) + "), but the hand was dealt without it. Tell the organisers.",
          Object.assign({}, receipt, { "cuts used": (data.cuts || []).map(function (c) { return c.cut; }).join(", ") || "none" }),
          { receipt: r, shown: { hand_id: data.hand_id, root: data.root, scheme: data.scheme, cuts: data.cuts } });
      } else {
        if (!out) {
          out = el("p");
          out.id = "cut-check";
          out.setAttribute("role", "status");
          alarms().appendChild(out);
        }
        out.hidden = false;
        out.className = "cut-ok";
        out.textContent = "Your cut was used in this deal.";
      }
    }).catch(function () { /* the site did not list the devices: nothing to compare with */ });
  }

  function start() {
    if (!(window.crypto && window.crypto.subtle)) return;
    var section = document.getElementById("coming-deals");
    var source = document.getElementById("hand-proof");
    var data = source ? JSON.parse(source.textContent) : null;
    var tableId = section ? section.dataset.tableId : (data && data.table_id) || scriptTable || null;
    if (section && document.getElementById("table-root")) startTable(section);
    if (data) checkHand(data, tableId);
    if (tableId && device()) {
      device().warnNewDevices();
      checkTable(tableId);
      document.addEventListener("devices:acknowledged", function () { checkTable(tableId); });
    }
  }

  // The table this page is of, when the page says so on this script's tag (a hand's page, the history).
  var scriptTable = document.currentScript && document.currentScript.dataset.tableId;

  window.homeClubCut = { cutOrder: cutOrder, cutOrderV2: cutOrderV2, cutMessage: cutMessage, cutValue: cutValue,
                         stored: stored, checkTable: checkTable,
                         bytes: { concat: concat, fromHex: fromHex, toHex: toHex, sha256: sha256, be: be } };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
