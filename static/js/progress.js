// Polls /jobs/<id>.json and draws the progress bar, rate and ETA; lands on the result when done.
(function () {
  function fmt(n) { return n == null ? "" : Math.round(n).toLocaleString(); }
  function eta(s) {
    if (s == null) return "";
    if (s < 60) return "about " + Math.ceil(s) + " s left";
    return "about " + Math.ceil(s / 60) + " min left";
  }
  function poll(card) {
    fetch(card.dataset.statusUrl, { credentials: "same-origin" })
      .then(function (r) { return r.json(); })
      .then(function (job) {
        var bar = card.querySelector(".bar");
        var frac = job.fraction != null ? job.fraction : (job.status === "succeeded" ? 1 : 0);
        bar.style.width = (100 * Math.min(frac, 1)).toFixed(1) + "%";
        card.querySelector(".job-status").textContent = job.status_text || job.status;
        card.querySelector(".job-counts").textContent =
          fmt(job.done) + (job.total ? " of " + fmt(job.total) : "") + " " + job.unit;
        card.querySelector(".job-rate").textContent = job.rate_per_s ? fmt(job.rate_per_s) + " " + job.unit + "/s" : "";
        // never an ETA for a job whose worker stopped beating (job.alive false)
        card.querySelector(".job-eta").textContent = job.status === "running" && job.alive ? eta(job.eta_s) : "";
        card.querySelector(".job-message").textContent = job.message || "";
        card.dataset.status = job.status;
        var retry = card.querySelector(".job-retry");
        if (retry) {
          retry.hidden = !job.can_retry;
          retry.querySelector("button").textContent =
            job.status === "interrupted" ? "Resume now" : "Retry from the last checkpoint";
        }
        if (job.status === "succeeded") {
          if (job.result_url) {
            var p = card.querySelector(".job-result");
            p.hidden = false;
            p.querySelector("a").href = job.result_url;
            if (card.dataset.redirect !== "no") { window.location.href = job.result_url; }
          }
          return;
        }
        if (job.status === "failed") {
          card.classList.add("failed");
          // a job that failed while this page watched it, whose details are this very page (an optimiser run):
          // load it again, so its heading says "failed" with the reason instead of the "queued" it was drawn with
          if (card.dataset.status0 !== "failed" && job.result_url === window.location.pathname) {
            window.location.reload();
            return;
          }
          if (job.result_url) {  // e.g. the ingest run whose records were all rejected
            var f = card.querySelector(".job-result");
            f.hidden = false;
            f.querySelector("a").href = job.result_url;
            f.querySelector("a").textContent = "See the details";
          }
          return;
        }
        card.classList.toggle("interrupted", job.status === "interrupted" || !job.alive && job.status === "running");
        setTimeout(function () { poll(card); }, 700);
      })
      .catch(function () { setTimeout(function () { poll(card); }, 2000); });
  }
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll(".job-progress").forEach(function (card) {
      card.dataset.status0 = card.dataset.status;
      poll(card);
    });
  });
})();
