/**
 * The page's script, served as is (plain ES2020, no build step, no library): fetches the charts,
 * then either follows a live daemon (polls /debug/actors, reads the journal's event stream, polls
 * the start-up report) or folds a recorded log under a scrubber (replay). Kept as a string because
 * the project compiles for Node only; it must not contain backquotes.
 *
 * Highlighting: each chart's `g.state` carries `data-path` (`run.nodeName`); a state value names a
 * set of such paths, and those groups get the class `active`. No re-layout on a state change.
 *
 * Selecting one of a pod's actors (`pod:<uid>`, `volume:<uid>:…`, `probe:<uid>:…`) shows the pod's
 * story from /debug/explain; each cited record is a link that moves the scrubber there (replay) or
 * marks it in the journal list (live).
 */
export const PAGE_SCRIPT = String.raw`(function () {
  'use strict';
  var STREAM_MAX_ITEMS = 300;
  var ui = {
    info: null, actors: [], selected: {}, selectedActor: null,
    records: [], cursor: 0, visible: [], dropped: 0, streamCount: 0, updates: 0,
    storyUid: null, story: null
  };
  window.__visualizer = ui;

  function $(id) { return document.getElementById(id); }
  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    if (attrs) Object.keys(attrs).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  // A live poll that never answered would freeze the page on its last state: polls pass a
  // timeout, after which the page shows itself disconnected and polls again.
  function getJson(url, timeoutMs) {
    var init = { cache: 'no-store' };
    if (timeoutMs) init.signal = AbortSignal.timeout(timeoutMs);
    return fetch(url, init).then(function (r) {
      if (!r.ok) throw new Error(url + ': ' + r.status);
      return r.json();
    });
  }

  /** Every path a state value names: { run: 'nodeName' } -> ['run', 'run.nodeName']. */
  function activePaths(value, prefix, out) {
    out = out || [];
    prefix = prefix || '';
    if (typeof value === 'string') { out.push(prefix ? prefix + '.' + value : value); return out; }
    if (value && typeof value === 'object') {
      Object.keys(value).forEach(function (k) {
        var p = prefix ? prefix + '.' + k : k;
        out.push(p);
        activePaths(value[k], p, out);
      });
    }
    return out;
  }
  /** A state value as one line: leaves joined by ', '. */
  function valueLabel(value) {
    if (value === null || value === undefined) return '';
    var paths = activePaths(value);
    return paths.filter(function (p) {
      return !paths.some(function (q) { return q !== p && q.indexOf(p + '.') === 0; });
    }).join(', ');
  }

  // ---- charts -------------------------------------------------------------------------------
  function loadCharts(machines) {
    var host = $('charts');
    return Promise.all(machines.map(function (m) {
      var box = el('div', { 'class': 'chart', id: 'chart-' + m, 'data-machine': m });
      var h = el('h3', null, m + ' ');
      h.appendChild(el('span', { 'class': 'showing' }, ''));
      box.appendChild(h);
      var body = el('div', { 'class': 'chart-body' }, 'laying out…');
      box.appendChild(body);
      host.appendChild(box);
      return getChart(m, 0).then(function (svg) {
        body.innerHTML = svg;
        indexChart(m);
      });
    }));
  }
  // On a busy node a layout can outlast the server's request timeout, or fail once: the server keeps
  // a layout it started and forgets a failed one, so asking again is what lets the page come up.
  var CHART_ATTEMPTS = 5;
  function getChart(m, attempt) {
    return fetch('/visualizer/charts/' + encodeURIComponent(m) + '.svg').then(function (r) {
      if (!r.ok) throw new Error('chart ' + m + ': ' + r.status);
      return r.text();
    }).catch(function (err) {
      if (attempt + 1 >= CHART_ATTEMPTS) throw err;
      return new Promise(function (done) { setTimeout(done, 500 * (attempt + 1)); }).then(function () { return getChart(m, attempt + 1); });
    });
  }

  // Per chart: its state groups by path (looked up once) and what is lit now, so an update
  // touches only the states that changed: a page watching 110 pods must stay cheap.
  var chartIndex = {};
  function indexChart(m) {
    var box = $('chart-' + m);
    var byPath = {};
    box.querySelectorAll('g.state').forEach(function (g) { byPath[g.getAttribute('data-path')] = g; });
    chartIndex[m] = { box: box, byPath: byPath, lit: {}, actor: null, label: null, showing: box.querySelector('.showing') };
  }
  function highlight() {
    var byKind = {};
    ui.actors.forEach(function (a) { (byKind[a.logic] = byKind[a.logic] || []).push(a); });
    (ui.info ? ui.info.machines : []).forEach(function (m) {
      var c = chartIndex[m];
      if (!c) return;
      var list = byKind[m] || [];
      var chosen = list.filter(function (a) { return a.id === ui.selected[m]; })[0] || list[0] || null;
      var set = {};
      (chosen ? activePaths(chosen.value) : []).forEach(function (p) { set[p] = true; });
      Object.keys(c.lit).forEach(function (p) { if (!set[p] && c.byPath[p]) c.byPath[p].classList.remove('active'); });
      Object.keys(set).forEach(function (p) { if (!c.lit[p] && c.byPath[p]) c.byPath[p].classList.add('active'); });
      c.lit = set;
      var actorId = chosen ? chosen.id : '';
      if (c.actor !== actorId) { c.box.setAttribute('data-actor', actorId); c.actor = actorId; }
      var label = chosen
        ? '— ' + chosen.id + ': ' + valueLabel(chosen.value) + (list.length > 1 ? '  (' + list.length + ' actors; pick one in the tree)' : '')
        : '— no live actor';
      if (c.label !== label) { c.showing.textContent = label; c.label = label; }
    });
    ui.updates += 1;
  }

  // ---- actor tree ---------------------------------------------------------------------------
  var treeSignature = '';
  function renderTree() {
    var signature = JSON.stringify([ui.selected, ui.actors.map(function (a) { return [a.id, a.parent, a.value, a.waitingOn || null]; })]);
    if (signature === treeSignature) return;
    treeSignature = signature;
    var children = {};
    var ids = {};
    ui.actors.forEach(function (a) { ids[a.id] = true; });
    ui.actors.forEach(function (a) {
      var parent = a.parent && ids[a.parent] ? a.parent : '';
      (children[parent] = children[parent] || []).push(a);
    });
    function build(parent) {
      var ul = el('ul');
      (children[parent] || []).forEach(function (a) {
        var li = el('li', { 'data-actor': a.id, 'data-logic': a.logic, 'data-value': valueLabel(a.value) });
        if (ui.selected[a.logic] === a.id) li.className = 'selected';
        var b = el('button', { type: 'button' }, a.id);
        b.addEventListener('click', function () { select(a); });
        li.appendChild(b);
        li.appendChild(el('span', { 'class': 'value' }, ' ' + valueLabel(a.value) + (a.waitingOn ? ' (waiting on ' + a.waitingOn + ')' : '')));
        if (children[a.id]) li.appendChild(build(a.id));
        ul.appendChild(li);
      });
      return ul;
    }
    var tree = $('tree');
    var built = build('');
    tree.innerHTML = '';
    Array.prototype.slice.call(built.childNodes).forEach(function (n) { tree.appendChild(n); });
  }
  function select(a) {
    ui.selected[a.logic] = a.id;
    renderTree();
    highlight();
    var box = $('chart-' + a.logic);
    if (box) box.scrollIntoView({ block: 'nearest' });
    var uid = podUidOf(a.id);
    if (uid) showStory(uid);
  }

  // ---- a pod's story --------------------------------------------------------------------------
  function podUidOf(actorId) {
    var m = /^(?:pod|volume|probe):([^:\/]+)/.exec(actorId);
    return m ? m[1] : null;
  }
  function storyNote(text) {
    var n = $('story-note');
    n.hidden = !text;
    n.textContent = text || '';
  }
  function showStory(uid) {
    ui.storyUid = uid;
    $('story-panel').hidden = false;
    $('story-pod').textContent = '— reading the journal…';
    storyNote('');
    fetch('/debug/explain/' + encodeURIComponent(uid) + '?format=json', { cache: 'no-store' }).then(function (r) {
      return r.json().then(function (body) {
        if (!r.ok) throw new Error(body.error || String(r.status));
        return body;
      });
    }).then(function (story) {
      if (ui.storyUid !== uid) return;
      ui.story = story;
      renderStory(story);
    }).catch(function (err) {
      if (ui.storyUid !== uid) return;
      ui.story = null;
      $('story-pod').textContent = '';
      $('story').innerHTML = '';
      storyNote('no story for pod ' + uid + ': ' + err.message);
    });
  }
  function renderStory(story) {
    var p = story.pod;
    $('story-pod').textContent = '— ' + p.namespace + '/' + p.name + ' (uid ' + p.uid + ')';
    var list = $('story');
    list.innerHTML = '';
    if (story.historyFrom) storyNote('the log starts at record #' + story.historyFrom + ': earlier history was rotated away');
    var start = story.lines.length ? story.lines[0].t : 0;
    story.lines.forEach(function (line) {
      var li = el('li', { 'data-family': line.family });
      li.appendChild(el('span', { 'class': 'seq' }, '+' + ((line.t - start) / 1000).toFixed(3) + 's '));
      li.appendChild(document.createTextNode(line.text));
      line.cites.forEach(function (seq) {
        var a = el('a', { href: '#', 'class': 'cite', 'data-seq': String(seq) }, '#' + seq);
        a.addEventListener('click', function (e) { e.preventDefault(); jumpTo(seq); });
        li.appendChild(a);
      });
      list.appendChild(li);
    });
    if (!story.lines.length) list.appendChild(el('li', null, 'nothing journaled about this pod'));
  }
  /** A cited record: the scrubber moves there in replay; live, the journal list marks it if it still holds it. */
  function jumpTo(seq) {
    if (ui.info && ui.info.mode === 'replay') {
      for (var k = 0; k < ui.records.length; k++) {
        if (ui.records[k].seq === seq) { ui.cursor = k; showCursor(); $('replay-panel').scrollIntoView({ block: 'nearest' }); return; }
      }
      storyNote('record #' + seq + ' is not in this log');
      return;
    }
    var list = $('stream');
    var items = list.querySelectorAll('li');
    var found = null;
    for (var i = 0; i < items.length; i++) {
      items[i].classList.remove('current');
      if (items[i].getAttribute('data-seq') === String(seq)) found = items[i];
    }
    if (found) {
      found.classList.add('current');
      found.scrollIntoView({ block: 'nearest' });
      storyNote('');
    } else {
      storyNote('record #' + seq + ' has left this page\'s journal list: open the event log with kubelet-ts visualize, or kubelet-ts replay LOG --from ' + seq);
    }
  }

  // ---- timeline -----------------------------------------------------------------------------
  function renderTimeline(report) {
    var host = $('timeline');
    host.innerHTML = '';
    var total = Math.max(1, report.coveredMs);
    var critical = {};
    report.criticalPath.phases.forEach(function (p) { critical[p] = true; });
    var dominant = {};
    report.criticalPath.dominant.forEach(function (d) { dominant[d.phase] = true; });
    report.phases.forEach(function (p) {
      var cls = 'phase-row' + (critical[p.phase] ? ' critical' : '') + (dominant[p.phase] ? ' dominant' : '');
      var row = el('div', { 'class': cls, 'data-phase': p.phase, 'data-outcome': p.outcome });
      row.appendChild(el('span', { 'class': 'name' }, (dominant[p.phase] ? '★ ' : '') + p.phase));
      var track = el('div', { 'class': 'track' });
      if (p.startMs !== null) {
        var bar = el('div', { 'class': 'bar', title: p.phase + ': ' + p.outcome });
        bar.style.left = (100 * p.startMs / total) + '%';
        bar.style.width = Math.max(0.2, 100 * (p.durationMs || 0) / total) + '%';
        track.appendChild(bar);
      }
      row.appendChild(track);
      var detail = p.startMs === null ? 'not reached'
        : '+' + p.startMs + 'ms, ' + p.durationMs + 'ms, ' + p.outcome;
      var d = el('span', { 'class': 'detail' }, detail);
      if (p.waitingOn) { d.appendChild(el('span', { 'class': 'waiting' }, ' waiting on: ' + p.waitingOn)); }
      if (p.error) { d.appendChild(el('span', { 'class': 'waiting' }, ' ' + p.error.code + ': ' + p.error.message)); }
      row.appendChild(d);
      host.appendChild(row);
    });
    var cp = report.criticalPath;
    $('timeline-summary').textContent = 'state: ' + report.finalState
      + (report.runningAtMs !== null ? ', running at +' + report.runningAtMs + 'ms' : '')
      + '; critical path: ' + cp.phases.length + ' phases in sequence, ' + cp.totalMs + 'ms'
      + (cp.dominant.length ? ' (★ dominant: ' + cp.dominant.map(function (x) { return x.phase; }).join(', ') + ')' : '');
  }

  // ---- journal list -------------------------------------------------------------------------
  function recordItem(r) {
    var li = el('li', { 'class': r.kind, 'data-seq': String(r.seq), title: JSON.stringify(r.payload) });
    li.appendChild(el('span', { 'class': 'seq' }, '#' + r.seq + ' +' + r.t + 'ms '));
    li.appendChild(document.createTextNode(r.actor + ' ' + r.type + ' ' + r.name));
    return li;
  }

  // ---- live mode ----------------------------------------------------------------------------
  function startLive() {
    function poll() {
      getJson('/debug/actors', 5000).then(function (body) {
        ui.actors = body.actors.filter(function (a) { return a.machine; });
        $('conn').textContent = 'live';
        $('conn').classList.remove('down');
        renderTree();
        highlight();
      }).catch(function () {
        $('conn').textContent = 'disconnected';
        $('conn').classList.add('down');
      }).then(function () { setTimeout(poll, 500); });
    }
    poll();
    if (!ui.info.journal) {
      $('timeline-summary').textContent = 'the journal is not connected to this debug server';
      return;
    }
    function pollReport() {
      getJson('/debug/startup', 5000).then(renderTimeline).catch(function () {}).then(function () { setTimeout(pollReport, 1000); });
    }
    pollReport();
    var list = $('stream');
    var source = new EventSource('/debug/journal/stream');
    source.onmessage = function (m) {
      var r = JSON.parse(m.data);
      ui.streamCount += 1;
      list.insertBefore(recordItem(r), list.firstChild);
      while (list.childNodes.length > STREAM_MAX_ITEMS) list.removeChild(list.lastChild);
    };
    source.addEventListener('dropped', function (m) {
      var d = JSON.parse(m.data);
      ui.dropped = d.total;
      var n = $('dropped');
      n.hidden = false;
      n.textContent = 'dropped ' + d.total + ' records: this page fell behind the kubelet';
    });
  }

  // ---- replay mode --------------------------------------------------------------------------
  /** Every actor's state after the records up to index i: state records give each actor's value. */
  function fold(records, i) {
    var actors = {};
    var order = [];
    for (var k = 0; k <= i && k < records.length; k++) {
      var r = records[k];
      if (r.type === 'actor') {
        if (!actors[r.actor]) order.push(r.actor);
        actors[r.actor] = { id: r.actor, parent: r.payload && r.payload.parent ? r.payload.parent : null, logic: r.name, value: null, machine: false, sinceMs: r.t, waitingOn: null };
      } else if (r.type === 'state') {
        var a = actors[r.actor];
        if (!a) { a = actors[r.actor] = { id: r.actor, parent: null, logic: r.name, value: null }; order.push(r.actor); }
        a.logic = r.name;
        a.machine = true;
        a.value = r.payload ? r.payload.value : null;
        a.status = r.payload ? r.payload.status : null;
        a.sinceMs = r.t;
      }
    }
    return order.map(function (id) { return actors[id]; }).filter(function (a) { return a.machine; });
  }
  function matches(r) {
    var actor = $('filter-actor').value;
    var type = $('filter-type').value.trim();
    return (!actor || r.actor === actor) && (!type || r.name.indexOf(type) === 0 || r.type === type);
  }
  function showCursor() {
    var r = ui.records[ui.cursor];
    $('scrubber').value = String(ui.cursor);
    $('position').textContent = r ? 'record ' + (ui.cursor + 1) + ' of ' + ui.records.length + ' (seq ' + r.seq + ', +' + r.t + 'ms)' : 'empty log';
    ui.actors = fold(ui.records, ui.cursor);
    renderTree();
    highlight();
    var tbody = $('states').querySelector('tbody');
    tbody.innerHTML = '';
    ui.actors.forEach(function (a) {
      var tr = el('tr', { 'data-actor': a.id });
      tr.appendChild(el('td', null, a.id));
      tr.appendChild(el('td', null, a.logic));
      tr.appendChild(el('td', { 'class': 'value' }, valueLabel(a.value) + (a.status && a.status !== 'active' ? ' (' + a.status + ')' : '')));
      tbody.appendChild(tr);
    });
    if (r) {
      $('record-head').textContent = '#' + r.seq + ' +' + r.t + 'ms ' + r.kind + ' ' + r.type + ' ' + r.name + ' on ' + r.actor + (r.source ? ' from ' + r.source : '');
      $('payload').textContent = JSON.stringify(r.payload, null, 2);
      getJson('/debug/startup?upTo=' + r.seq).then(renderTimeline).catch(function () {});
    }
    renderList();
  }
  function renderList() {
    var list = $('stream');
    list.innerHTML = '';
    var shown = 0;
    // A window around the cursor keeps the list cheap on long logs.
    var from = Math.max(0, ui.cursor - 150);
    for (var k = from; k < ui.records.length && shown < STREAM_MAX_ITEMS; k++) {
      var r = ui.records[k];
      if (!matches(r) && k !== ui.cursor) continue;
      var li = recordItem(r);
      if (k === ui.cursor) li.classList.add('current');
      (function (idx) { li.addEventListener('click', function () { ui.cursor = idx; showCursor(); }); })(k);
      list.appendChild(li);
      shown += 1;
    }
    var cur = list.querySelector('.current');
    if (cur) cur.scrollIntoView({ block: 'nearest' });
  }
  function step(dir) {
    for (var k = ui.cursor + dir; k >= 0 && k < ui.records.length; k += dir) {
      if (matches(ui.records[k])) { ui.cursor = k; showCursor(); return; }
    }
  }
  function startReplay() {
    $('replay-panel').hidden = false;
    $('conn').textContent = 'replay';
    return getJson('/debug/journal/records').then(function (body) {
      ui.records = body.records;
      var scrubber = $('scrubber');
      scrubber.max = String(Math.max(0, ui.records.length - 1));
      var names = {};
      ui.records.forEach(function (r) { names[r.actor] = true; });
      Object.keys(names).sort().forEach(function (n) { $('filter-actor').appendChild(el('option', { value: n }, n)); });
      scrubber.addEventListener('input', function () { ui.cursor = Number(scrubber.value); showCursor(); });
      $('prev').addEventListener('click', function () { step(-1); });
      $('next').addEventListener('click', function () { step(1); });
      $('filter-actor').addEventListener('change', renderList);
      $('filter-type').addEventListener('input', renderList);
      document.addEventListener('keydown', function (e) {
        if (e.target && e.target.tagName === 'INPUT' && e.target.type === 'text') return;
        if (e.key === 'ArrowLeft') { step(-1); e.preventDefault(); }
        if (e.key === 'ArrowRight') { step(1); e.preventDefault(); }
      });
      ui.cursor = ui.records.length - 1;
      showCursor();
    });
  }

  getJson('/visualizer/info').then(function (info) {
    ui.info = info;
    $('mode').textContent = info.mode;
    $('story-refresh').addEventListener('click', function () { if (ui.storyUid) showStory(ui.storyUid); });
    $('title').textContent = info.title || '';
    document.body.setAttribute('data-mode', info.mode);
    return loadCharts(info.machines).then(function () {
      document.body.setAttribute('data-charts', 'ready');
      return info.mode === 'replay' ? startReplay() : startLive();
    });
  }).catch(function (err) {
    $('conn').textContent = 'error: ' + err.message;
    $('conn').classList.add('down');
  });
})();
`;
