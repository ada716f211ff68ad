// Sequencer plan editor: on every change, post the form to the derive endpoint (which runs the
// pure core on the unsaved values) and redraw the derived-figures table.  Saving is a normal submit.
(function () {
  function sig(v) {
    if (v == null || !isFinite(v)) return "–";
    var a = Math.abs(v);
    if (a >= 1e9) return (v / 1e9).toPrecision(3) + " G";
    if (a >= 1e6) return (v / 1e6).toPrecision(3) + " M";
    if (a >= 1e4) return (v / 1e3).toPrecision(3) + " k";
    if (a >= 100) return Math.round(v).toLocaleString();
    return Number(v.toPrecision(3)).toString();
  }
  function fixed(v, d) { return v == null ? "–" : Number(v).toLocaleString(undefined, { minimumFractionDigits: d, maximumFractionDigits: d }); }
  // as the server's `figs` filter: whole units with separators from 100 up, three significant figures below
  function figs(v) {
    if (v == null) return "–";
    return Math.abs(v) >= 100 ? Math.round(v).toLocaleString() : String(Number(Number(v).toPrecision(3)));
  }
  function cell(text) { var td = document.createElement("td"); td.className = "num"; td.textContent = text; return td; }
  function render(table, data) {
    var body = table.querySelector("tbody");
    body.innerHTML = "";
    data.years.forEach(function (y) {
      var tr = document.createElement("tr");
      var first = document.createElement("td"); first.textContent = y.year; tr.appendChild(first);
      tr.appendChild(cell(fixed(y.instruments_end, 1)));
      tr.appendChild(cell(fixed(y.samples_total, 0)));
      tr.appendChild(cell(figs(y.genomes_per_day_peak)));
      data.nodes.forEach(function (n) { tr.appendChild(cell(sig(y.core_hours_by_node[n]))); });
      tr.appendChild(cell(fixed(y.new_tb_total, 0)));
      tr.appendChild(cell(fixed(y.stored_pb_total, 2)));
      tr.appendChild(cell(fixed(y.daily_ingest_tb_peak, 2)));
      body.appendChild(tr);
    });
  }
  document.addEventListener("DOMContentLoaded", function () {
    var form = document.getElementById("plan-editor");
    var table = document.getElementById("derived-table");
    var status = document.getElementById("recalc-status");
    if (!form || !table) return;
    var timer = null, seq = 0;
    function recompute() {
      var mine = ++seq;
      status.textContent = "(recomputing…)";
      fetch(form.dataset.deriveUrl, { method: "POST", body: new FormData(form), credentials: "same-origin" })
        .then(function (r) { return r.json().then(function (j) { return { ok: r.ok, body: j }; }); })
        .then(function (res) {
          if (mine !== seq) return;
          if (!res.ok) { status.textContent = "(cannot compute: " + res.body.error + ")"; return; }
          render(table, res.body);
          status.textContent = "(recomputed from your unsaved values)";
          table.dataset.recomputed = String(mine);
        })
        .catch(function () { status.textContent = "(could not reach the server)"; });
    }
    form.addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(recompute, 250); });
  });
})();
