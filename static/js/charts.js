// Draws every Plotly chart on a page.  Contract: an element with data-figure="ID" where ID
// names a json_script element holding {data, layout}; optional data-csv-url adds a
// "Download CSV" link (PNG download comes from the chart's own modebar).
(function () {
  function draw(el) {
    var source = document.getElementById(el.dataset.figure);
    if (!source || typeof Plotly === "undefined") return;
    var fig = JSON.parse(source.textContent);
    var layout = Object.assign({ autosize: true }, fig.layout || {});
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
