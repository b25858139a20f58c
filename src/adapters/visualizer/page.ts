/**
 * The visualizer's page: one static document; everything it shows comes from the debug server's
 * JSON, SVG and event-stream routes. Script and styles are served by kubelet-ts (no CDN, no web
 * font), and the content security policy says so to the browser too.
 */
export const PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'">
<title>kubelet-ts visualizer</title>
<link rel="stylesheet" href="/visualizer/app.css">
</head>
<body>
<header>
  <h1>kubelet-ts</h1>
  <span id="mode" class="badge">…</span>
  <span id="title"></span>
  <span id="conn" class="conn"></span>
</header>
<main>
  <aside id="tree-panel">
    <h2>Actors</h2>
    <ul id="tree" class="tree"></ul>
  </aside>
  <section id="center">
    <section id="story-panel" hidden>
      <h2>Pod story <span id="story-pod"></span> <button id="story-refresh" type="button" title="tell it again from the journal">↻</button></h2>
      <div id="story-note" class="note" hidden></div>
      <ol id="story" class="story"></ol>
    </section>
    <section id="replay-panel" hidden>
      <h2>Time travel</h2>
      <div class="controls">
        <button id="prev" type="button" title="previous record (←)">◀</button>
        <input id="scrubber" type="range" min="0" max="0" value="0">
        <button id="next" type="button" title="next record (→)">▶</button>
        <span id="position"></span>
      </div>
      <div class="controls">
        <label>actor <select id="filter-actor"><option value="">all</option></select></label>
        <label>event type <input id="filter-type" type="text" placeholder="e.g. pod.kill or xstate.done"></label>
      </div>
      <div class="replay-grid">
        <div><h3>Record</h3><div id="record-head"></div><pre id="payload"></pre></div>
        <div><h3>Every actor at this record</h3><table id="states"><thead><tr><th>actor</th><th>machine</th><th>state</th></tr></thead><tbody></tbody></table></div>
      </div>
    </section>
    <section id="timeline-panel">
      <h2>Start-up timeline</h2>
      <div id="timeline-summary"></div>
      <div id="timeline"></div>
    </section>
    <section id="charts"></section>
  </section>
  <aside id="stream-panel">
    <h2>Journal</h2>
    <div id="dropped" class="dropped" hidden></div>
    <ol id="stream" class="stream"></ol>
  </aside>
</main>
<script src="/visualizer/app.js"></script>
</body>
</html>
`;
