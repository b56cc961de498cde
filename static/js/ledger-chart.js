/* Draws the ledger charts from the json_script data; the tables beside them carry the same numbers without JavaScript. */
(function () {
  "use strict";
  var source = document.getElementById("ledger-chart-data");
  if (!source || typeof window.Chart === "undefined") { return; }
  var data = JSON.parse(source.textContent);
  function money(value) { return value.toFixed(2) + " " + data.currency; }
  // The site's colours for the scheme in use (static/css/site.css), as the browser resolves them.
  function colour(name) {
    var probe = document.createElement("span");
    probe.hidden = true;
    probe.style.color = "var(" + name + ")";
    document.body.appendChild(probe);
    var found = window.getComputedStyle(probe).color;
    probe.remove();
    return found;
  }
  function faint(rgb) { return rgb.replace(/^rgb\((.*)\)$/, "rgba($1, .15)"); }
  var charts = [];
  function draw(id, type, series, label) {
    var canvas = document.getElementById(id);
    if (!canvas) { return; }
    if (!series.labels.length) { canvas.parentNode.classList.add("empty"); return; }
    var up = colour("--accent-text"), down = colour("--danger");
    var colours = series.values.map(function (v) { return v < 0 ? down : up; });
    charts.push(new window.Chart(canvas, {
      type: type,
      data: { labels: series.labels, datasets: [{ label: label, data: series.values, borderColor: up,
        backgroundColor: type === "bar" ? colours : faint(up), fill: type === "line",
        // a few points (one day, or an entry each) get dots, so even a single point shows
        pointRadius: type === "line" && series.labels.length <= 40 ? 4 : 0, stepped: type === "line" }] },
      options: { responsive: true, maintainAspectRatio: false, animation: false,
        plugins: { legend: { display: false }, tooltip: { callbacks: { label: function (c) { return money(c.parsed.y !== undefined && type === "line" ? c.parsed.y : (c.parsed.x !== undefined && type === "bar" ? c.parsed.x : c.parsed.y)); } } } },
        indexAxis: type === "bar" ? "y" : "x",
        scales: type === "bar" ? { x: { ticks: { callback: function (v) { return v; } } } } : { x: { ticks: { maxTicksLimit: 8 } } } }
    }));
  }
  function drawAll() {
    charts.forEach(function (chart) { chart.destroy(); });
    charts = [];
    window.Chart.defaults.color = colour("--muted");
    window.Chart.defaults.borderColor = colour("--border");
    draw("balance-chart", "line", data.history, "Balance");
    draw("movers-chart", "bar", data.movers, "Change");
  }
  drawAll();
  // Drawn anew in the other scheme's colours when the system switches between light and dark.
  window.matchMedia("(prefers-color-scheme: dark)").addEventListener("change", drawAll);
})();
