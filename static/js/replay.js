// The "what if the machine were bigger or smaller?" slider of the Queue waits section.
// Reads the replay's precomputed points (json_script named by data-source) and shows the waits
// at the chosen machine size for the chosen year. No requests: the replay computed every size.
(function () {
  function hours(s) {
    if (s == null) return "–";
    if (s < 60) return Math.round(s) + " s";
    if (s < 3600) return (s / 60).toFixed(1) + " min";
    return (s / 3600).toFixed(2) + " h";
  }
  function setup(box) {
    var source = document.getElementById(box.dataset.source);
    if (!source) return;
    var data = JSON.parse(source.textContent);
    var year = box.querySelector(".what-if-year");
    var scale = box.querySelector(".what-if-scale");
    var out = box.querySelector(".what-if-out");
    function show() {
      var y = data.years[Number(year.value)];
      var want = data.scales[Number(scale.value)];
      var p = null;
      y.points.forEach(function (q) { if (q.machine_scale === want) p = q; });
      if (!p) { out.textContent = "x" + want + ": no nodes at this size"; return; }
      out.textContent = "x" + want + " (" + p.processors.toLocaleString() + " cores in " + y.year + "): mean wait " +
        hours(p.mean_wait) + ", p95 " + hours(p.p95_wait) + ", utilisation " + Math.round(100 * p.utilisation) + " %" +
        (p.jobs_not_simulated ? ", " + p.jobs_not_simulated.toLocaleString() + " jobs too wide" : "");
      box.dataset.shown = String(want);
    }
    year.addEventListener("change", show);
    scale.addEventListener("input", show);
    show();
  }
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll(".what-if[data-source]").forEach(setup);
  });
})();
