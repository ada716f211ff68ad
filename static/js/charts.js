// Draws every Plotly chart on a page.  Contract: an element with data-figure="ID" where ID
// names a json_script element holding {data, layout}; optional data-csv-url adds a
// "Download CSV" link (PNG download comes from the chart's own modebar).
//
// Every axis is tidied here, once for all charts (figures built in Python stay as they are):
// the margin grows to hold tick labels and the axis title apart (automargin + standoff); a
// percentage axis gets round ticks (a secondary one, a CDF or share, runs 0-100%); a log axis
// labels whole decades (1, 10, 100 ...) or, inside one decade, 1-2-5 steps, never bare "2 ... 9".
(function () {
  function axisValues(data, key) {
    var letter = key.charAt(0), ref = letter + key.slice(5);
    var out = [];
    (data || []).forEach(function (t) {
      if (t.visible === false || (t[letter + "axis"] || letter) !== ref) return;
      (t[letter] || []).forEach(function (v) {
        var n = Number(v);
        if (v !== null && v !== "" && isFinite(n)) out.push(n);
      });
    });
    return out;
  }

  function percentTicks(axis, values, secondary) {
    if (axis.dtick !== undefined || axis.tickvals !== undefined) return;
    var top = axis.range ? axis.range[1] : Math.max.apply(null, values.concat([0]));
    if (secondary && !axis.range && top <= 1) { axis.range = [0, 1.02]; top = 1; }
    var span = Math.max(top - (axis.range ? axis.range[0] : 0), 0.01);
    var steps = [0.01, 0.02, 0.05, 0.1, 0.2, 0.25, 0.5, 1, 2, 5];
    var dtick = steps.find(function (s) { return span / s <= 6; }) || 10;
    axis.tickmode = "linear"; axis.tick0 = 0; axis.dtick = dtick;
  }

  function logTicks(axis, values) {
    if (axis.dtick !== undefined || axis.tickvals !== undefined) return;
    var pos = values.filter(function (v) { return v > 0; });
    if (!pos.length) return;
    var lo = Math.min.apply(null, pos), hi = Math.max.apply(null, pos);
    if (hi / lo >= 10) { axis.dtick = 1; return; }  // whole decades: 1, 10, 100 ...
    // inside one decade: 1-2-5 steps, finer (still whole numbers, labelled in full) if that leaves under three
    var sets = [[1, 2, 5], [1, 2, 3, 5, 7], [1, 2, 3, 4, 5, 6, 7, 8, 9]], vals = [];
    for (var i = 0; i < sets.length; i++) {
      vals = [];
      for (var e = Math.floor(Math.log10(lo)) - 1; e <= Math.ceil(Math.log10(hi)) + 1; e++) {
        sets[i].forEach(function (m) { vals.push(m * Math.pow(10, e)); });
      }
      if (vals.filter(function (v) { return v >= lo && v <= hi; }).length >= 3) break;
    }
    axis.tickmode = "array"; axis.tickvals = vals;
  }

  function tidy(fig, layout) {
    Object.keys(layout).forEach(function (key) {
      if (!/^[xy]axis\d*$/.test(key) || !layout[key] || typeof layout[key] !== "object") return;
      var axis = layout[key] = Object.assign({}, layout[key]);
      if (axis.automargin === undefined) axis.automargin = true;
      if (axis.title && typeof axis.title === "object" && axis.title.standoff === undefined) {
        axis.title = Object.assign({ standoff: 12 }, axis.title);
      }
      var values = axisValues(fig.data, key);
      if (typeof axis.tickformat === "string" && /%$/.test(axis.tickformat) && axis.type !== "date") {
        percentTicks(axis, values, !!axis.overlaying);
      }
      if (axis.type === "log") logTicks(axis, values);
    });
    return layout;
  }

  function draw(el) {
    var source = document.getElementById(el.dataset.figure);
    if (!source || typeof Plotly === "undefined") return;
    var fig = JSON.parse(source.textContent);
    var layout = tidy(fig, Object.assign({ autosize: true }, fig.layout || {}));
    Plotly.newPlot(el, fig.data || [], layout, {
      responsive: true, displaylogo: false,
      toImageButtonOptions: { format: "png", filename: el.dataset.pngName || el.dataset.figure, scale: 2 },
    });
    el.dataset.drawn = "yes";
    if (el.dataset.csvUrl && !el.parentNode.querySelector(".chart-actions[data-for='" + el.id + "']")) {
      var actions = document.createElement("p");
      actions.className = "chart-actions";
      actions.setAttribute("data-for", el.id || "");
      var png = document.createElement("a");
      png.href = "#";
      png.textContent = "Download PNG";
      png.addEventListener("click", function (e) {
        e.preventDefault();
        Plotly.downloadImage(el, { format: "png", filename: el.dataset.pngName || el.dataset.figure, scale: 2 });
      });
      var csv = document.createElement("a");
      csv.href = el.dataset.csvUrl;
      csv.textContent = "Download CSV";
      actions.appendChild(png);
      actions.appendChild(document.createTextNode(" · "));
      actions.appendChild(csv);
      el.parentNode.insertBefore(actions, el.nextSibling);
    }
  }
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("[data-figure]").forEach(draw);
  });
})();
