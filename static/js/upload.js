// The upload page: drag-and-drop onto the drop zone, a size check before sending, an upload
// progress bar, then the server's answer (the job's progress page, or the form with errors).
(function () {
  function human(n) {
    var units = ["bytes", "KB", "MB", "GB", "TB"], i = 0;
    while (n >= 1024 && i < units.length - 1) { n /= 1024; i++; }  // binary, like the runs list
    return (i ? n.toFixed(1) : n) + " " + units[i];
  }
  document.addEventListener("DOMContentLoaded", function () {
    var form = document.getElementById("upload-form");
    if (!form) return;
    var input = form.querySelector("#id_file");
    var zone = form.querySelector("#dropzone");
    var chosen = form.querySelector("#chosen");
    var error = form.querySelector("#client-error");
    var maxBytes = parseInt(form.dataset.maxBytes, 10);
    // the cluster (accounting logs) or file system (storage scans) select with its "new…" name field
    var cluster = form.querySelector("#id_cluster, #id_filesystem");
    var newLabel = form.querySelector("#new-cluster-label, #new-filesystem-label");
    var serverCommand = form.dataset.serverCommand || "python manage.py ingest_accounting";

    function syncCluster() { if (cluster && newLabel) newLabel.hidden = cluster.value !== "__new__"; }
    if (cluster) cluster.addEventListener("change", syncCluster);
    syncCluster();

    function check() {
      error.hidden = true;
      var f = input.files[0];
      if (!f) { chosen.textContent = ""; return true; }
      chosen.textContent = f.name + " (" + human(f.size) + ")";
      if (f.size > maxBytes) {
        error.textContent = "This file is " + human(f.size) + ", larger than the upload limit of " +
          form.dataset.maxHuman + ". Compress it (gzip or bzip2 are read directly) or load it on the server " +
          "with " + serverCommand + ".";
        error.hidden = false;
        return false;
      }
      return true;
    }
    input.addEventListener("change", check);
    ["dragenter", "dragover"].forEach(function (ev) {
      zone.addEventListener(ev, function (e) { e.preventDefault(); zone.classList.add("over"); });
    });
    ["dragleave", "drop"].forEach(function (ev) {
      zone.addEventListener(ev, function (e) { e.preventDefault(); zone.classList.remove("over"); });
    });
    zone.addEventListener("drop", function (e) {
      if (e.dataTransfer && e.dataTransfer.files.length) { input.files = e.dataTransfer.files; check(); }
    });

    form.addEventListener("submit", function (e) {
      if (!check()) { e.preventDefault(); return; }
      if (!window.XMLHttpRequest || !window.FormData) return;  // plain form post
      e.preventDefault();
      var box = form.querySelector("#upload-progress");
      var bar = box.querySelector(".bar");
      var status = box.querySelector("#upload-status");
      box.hidden = false;
      form.querySelector("#upload-submit").disabled = true;
      var xhr = new XMLHttpRequest();
      xhr.open("POST", form.action);
      xhr.upload.addEventListener("progress", function (p) {
        if (!p.lengthComputable) return;
        bar.style.width = (100 * p.loaded / p.total).toFixed(1) + "%";
        status.textContent = "Uploading " + human(p.loaded) + " of " + human(p.total);
      });
      xhr.upload.addEventListener("load", function () { status.textContent = "Uploaded; checking the file…"; });
      xhr.addEventListener("load", function () {
        if (xhr.status < 400 && xhr.responseURL && xhr.responseURL !== form.action) {
          window.location.href = xhr.responseURL;  // the job's progress page
          return;
        }
        document.open(); document.write(xhr.responseText); document.close();  // the form with its errors
      });
      xhr.addEventListener("error", function () {
        status.textContent = "The upload failed (connection lost). Try again.";
        form.querySelector("#upload-submit").disabled = false;
      });
      xhr.send(new FormData(form));
    });
  });
})();
