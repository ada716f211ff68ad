// The design-from-forecast form: the "counted twice?" note about adding a sequencer plan to a forecast
// of every department shows only while a plan is chosen (without JavaScript it is always shown).
(function () {
  document.addEventListener("DOMContentLoaded", function () {
    var plan = document.getElementById("plan");
    var note = document.getElementById("plan-overlap");
    if (!plan || !note) return;
    function sync() { note.hidden = !plan.value; }
    plan.addEventListener("change", sync);
    sync();
  });
})();
