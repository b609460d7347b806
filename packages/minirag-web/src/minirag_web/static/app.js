// minirag's only script: a sync's live progress on the health view (server-sent events).
// Every page works without it; this only spares reloading to see the counts move.
"use strict";
(function () {
  var job = document.getElementById("job");
  if (!job || !window.EventSource) return;
  var state = job.querySelector('[data-field="state"]');
  var error = job.querySelector('[data-field="error"]');
  var terminal = ["succeeded", "failed", "cancelled"];
  if (terminal.indexOf(state.textContent.trim()) !== -1) return;
  var source = new EventSource(job.getAttribute("data-events"));
  source.addEventListener("progress", function (event) {
    var data = JSON.parse(event.data);
    state.textContent = data.state;
    error.textContent = data.error || "";
    Object.keys(data.counts).forEach(function (key) {
      var cell = job.querySelector('[data-count="' + key + '"]');
      if (cell) cell.textContent = String(data.counts[key]);
    });
  });
  source.addEventListener("done", function () {
    source.close();
    // The finished job names its errors: show them (the page is rendered by the server).
    window.location.reload();
  });
  source.onerror = function () { source.close(); };
})();
