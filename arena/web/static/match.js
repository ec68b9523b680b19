/* arena: starts the replay viewer on a match page (frames from the API). */
"use strict";
(function () {
  const A = window.Arena;
  const data = A.readJSON("viewer-data");
  if (!data) return;
  const first = A.readJSON("viewer-first-chunk");
  const source = data.source === "inline" ? A.inlineSource(data.chunks) : A.apiSource(data.match.id);
  window.arenaViewer = new A.Viewer(document.getElementById("viewer"), data, source, first);
})();
