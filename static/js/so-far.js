// The hand so far: over the live table, step back through this hand's steps as this member may see
// them now (drawn by the server, games/views/so_far.py), then back to live. Without the script the
// link opens a plain page of the same steps.
(function () {
  "use strict";
  var dialog = document.getElementById("so-far");
  if (!dialog || !window.fetch || typeof dialog.showModal !== "function") { return; }
  var holder = dialog.querySelector("[data-step]");
  var where = dialog.querySelector("[data-where]");
  var lastOut = dialog.querySelector("[data-last]");
  var error = dialog.querySelector("[data-error]");
  var prev = dialog.querySelector('[data-go="prev"]');
  var next = dialog.querySelector('[data-go="next"]');
  var live = dialog.querySelector('[data-go="live"]');
  var steps = [];
  var index = 0;
  var opener = null;

  function show(to) {
    if (to < 0 || to >= steps.length) { return; }
    index = to;
    holder.innerHTML = steps[to].html;  // drawn by the server's template, escaped there
    where.textContent = String(to);
    prev.disabled = to === 0;
    next.disabled = to === steps.length - 1;
  }

  function fail(message, href, words) {
    steps = [];
    holder.textContent = "";
    error.textContent = message + " ";
    var a = document.createElement("a");
    a.href = href;
    a.textContent = words;
    error.appendChild(a);
    error.hidden = false;
    prev.disabled = next.disabled = true;
    live.focus();
  }

  function open(link) {
    opener = link;
    error.hidden = true;
    fetch(link.dataset.soFar, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (r) { return r.json().then(function (data) { return { ok: r.ok, data: data }; }); })
      .then(function (got) {
        if (!got.ok) {
          if (got.data.replay) { fail(got.data.error, got.data.replay, "Its replay"); }
          else { fail(got.data.error || "The steps could not be read.", link.href, "The steps as a page"); }
          return;
        }
        steps = got.data.steps;
        lastOut.textContent = String(steps.length - 1);
        show(steps.length - 1);  // from where the table stands now, back
        (prev.disabled ? live : prev).focus();
      })
      .catch(function () { fail("The steps could not be read here.", link.href, "The steps as a page"); });
    if (!dialog.open) { dialog.showModal(); }
    live.focus();
  }

  function backToLive() {
    dialog.close();
  }

  dialog.addEventListener("close", function () {
    holder.textContent = "";
    // Back where it was opened: the link, or its copy in a live area redrawn since.
    var back = opener && document.contains(opener) ? opener : document.querySelector("#table-live a[data-so-far]");
    if (back) { back.focus(); }
  });
  prev.addEventListener("click", function () { show(index - 1); });
  next.addEventListener("click", function () { show(index + 1); });
  live.addEventListener("click", backToLive);
  dialog.addEventListener("keydown", function (e) {
    if (e.altKey || e.ctrlKey || e.metaKey) { return; }
    if (e.key === "ArrowLeft") { e.preventDefault(); show(index - 1); }
    else if (e.key === "ArrowRight") { e.preventDefault(); show(index + 1); }
  });
  // The link lives in the live area, which each frame redraws: listen on the document.
  document.addEventListener("click", function (e) {
    var link = e.target.closest && e.target.closest("a[data-so-far]");
    if (!link || e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey) { return; }
    e.preventDefault();
    open(link);
  });
}());
