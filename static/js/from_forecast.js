// The design-from-forecast form: the "counted twice?" note about adding a sequencer plan to a forecast
// that already holds its sequencing shows only while such a plan is chosen, and only the paragraph for
// that plan's department (a plan without one: the general paragraph), and only while the plan's years meet
// the design's. Without JavaScript every
// paragraph is shown.
(function () {
  document.addEventListener("DOMContentLoaded", function () {
    var plan = document.getElementById("plan");
    var note = document.getElementById("plan-overlap");
    if (!plan || !note) return;
    var paragraphs = note.querySelectorAll(".overlap-note");
    var start = document.getElementById("start-year");
    var end = document.getElementById("end-year");
    // a plan whose years miss the design's adds nothing, so nothing can be counted twice (the server
    // refuses only a plan that adds core-hours in the design's years)
    function inYears(option) {
      var first = parseInt(option.getAttribute("data-first"), 10);
      var last = parseInt(option.getAttribute("data-last"), 10);
      if (!start || !end || isNaN(first) || isNaN(last)) return true;
      return first <= parseInt(end.value, 10) && last >= parseInt(start.value, 10);
    }
    function sync() {
      var option = plan.options[plan.selectedIndex];
      var overlaps = !!plan.value && !!option && option.getAttribute("data-overlap") === "1" && inYears(option);
      var department = option ? option.getAttribute("data-department") || "" : "";
      note.hidden = !overlaps;
      for (var i = 0; i < paragraphs.length; i++) {
        paragraphs[i].hidden = paragraphs[i].getAttribute("data-department") !== department;
      }
    }
    plan.addEventListener("change", sync);
    if (start) start.addEventListener("change", sync);
    if (end) end.addEventListener("change", sync);
    sync();
  });
})();
