// The design-from-forecast form: the "counted twice?" note about adding a sequencer plan to a forecast
// that already holds its sequencing shows only while such a plan is chosen, and only the paragraph for
// that plan's department (a plan without one: the general paragraph). Without JavaScript every
// paragraph is shown.
(function () {
  document.addEventListener("DOMContentLoaded", function () {
    var plan = document.getElementById("plan");
    var note = document.getElementById("plan-overlap");
    if (!plan || !note) return;
    var paragraphs = note.querySelectorAll(".overlap-note");
    function sync() {
      var option = plan.options[plan.selectedIndex];
      var overlaps = !!plan.value && !!option && option.getAttribute("data-overlap") === "1";
      var department = option ? option.getAttribute("data-department") || "" : "";
      note.hidden = !overlaps;
      for (var i = 0; i < paragraphs.length; i++) {
        paragraphs[i].hidden = paragraphs[i].getAttribute("data-department") !== department;
      }
    }
    plan.addEventListener("change", sync);
    sync();
  });
})();
