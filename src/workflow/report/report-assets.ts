/**
 * The report page's inline style sheet and script: constants, never built from run data, so no
 * value of a run can reach a `<style>` or `<script>` element. No fonts, images or URLs: the page
 * must open with no network. The script only filters, sorts and links what the HTML already holds.
 */

export const REPORT_STYLE = `
:root{--completed:#2f9e5b;--failed:#d64545;--cancelled:#d9951e;--journaled:#7d8fa8;--unfinished:#9a6fd1;--ink:#1d2430;--muted:#5f6b7a;--line:#dde2e8;--panel:#f6f8fa}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--ink);background:#fff}
main{max-width:1200px;margin:0 auto;padding:20px}
h1{font-size:22px;margin:0 0 2px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid var(--line);padding-bottom:4px}
.description{color:var(--muted);margin:0 0 12px}
.status{display:inline-block;padding:1px 8px;border-radius:10px;color:#fff;font-weight:600;font-size:13px;vertical-align:middle;margin-left:8px}
.status.completed{background:var(--completed)}.status.error{background:var(--failed)}.status.cancelled,.status.failed-agents{background:var(--cancelled)}.status.running,.status.interrupted{background:var(--unfinished)}
dl.facts{display:grid;grid-template-columns:repeat(auto-fill,minmax(170px,1fr));gap:8px;margin:12px 0}
dl.facts div{background:var(--panel);border:1px solid var(--line);border-radius:6px;padding:6px 10px}
dt{color:var(--muted);font-size:12px}dd{margin:0;font-weight:600;overflow-wrap:anywhere}
dl.where{display:grid;grid-template-columns:max-content 1fr;gap:1px 12px;margin:8px 0;font-size:12.5px}
dl.where dt{font-size:12.5px}dl.where dd{font-weight:400;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.legend{display:flex;gap:14px;flex-wrap:wrap;margin:6px 0;font-size:13px;color:var(--muted)}
.legend i{display:inline-block;width:12px;height:12px;border-radius:2px;margin-right:4px;vertical-align:-1px}
.s-completed{fill:var(--completed);background:var(--completed)}.s-failed{fill:var(--failed);background:var(--failed)}
.s-cancelled{fill:var(--cancelled);background:var(--cancelled)}.s-journaled{fill:var(--journaled);background:var(--journaled)}
.s-unfinished{fill:var(--unfinished);background:var(--unfinished)}
#timeline{display:block;border:1px solid var(--line);border-radius:6px;padding:4px;background:#fff}
#timeline rect{cursor:pointer}#timeline rect:hover{stroke:var(--ink);stroke-width:1}
#timeline text{font-size:12px;fill:var(--ink)}#timeline text.axis{fill:var(--muted);font-size:11px}
#timeline text.group{font-weight:600}#timeline .tick{stroke:#eef1f4}#timeline .rule{stroke:var(--line)}
table{border-collapse:collapse;width:100%;font-size:13px}
th,td{text-align:left;padding:3px 8px;border-bottom:1px solid var(--line);vertical-align:top}
th{background:var(--panel);position:sticky;top:0;cursor:pointer;user-select:none;white-space:nowrap}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.label{overflow-wrap:anywhere;max-width:420px}
td.state span{display:inline-block;padding:0 6px;border-radius:8px;color:#fff;font-size:12px}
tr.hit td{background:#fff4c2}
.tools{display:flex;gap:8px;align-items:center;margin:6px 0}
.tools input,.tools select{font:inherit;padding:3px 6px;border:1px solid var(--line);border-radius:4px}
.count{color:var(--muted);font-size:13px}
.scroll{max-height:70vh;overflow:auto;border:1px solid var(--line);border-radius:6px}
pre{background:var(--panel);border:1px solid var(--line);border-radius:6px;padding:10px;overflow:auto;max-height:70vh;white-space:pre-wrap;overflow-wrap:anywhere;margin:6px 0}
pre.error{border-color:var(--failed)}
ol.logs{list-style:none;padding:0;margin:0;font:12.5px/1.5 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
ol.logs li{padding:2px 6px;border-bottom:1px solid #f0f2f5;white-space:pre-wrap;overflow-wrap:anywhere}
ol.logs li.phase{font-weight:700;background:var(--panel)}
ol.logs time{color:var(--muted);margin-right:8px}
details summary{cursor:pointer;color:var(--muted);margin:4px 0}
.note{color:var(--muted);font-size:13px}
footer{margin-top:32px;color:var(--muted);font-size:12px}
section.later{content-visibility:auto;contain-intrinsic-size:auto 600px}
`;

export const REPORT_SCRIPT = `
(function () {
  var table = document.getElementById('agents');
  if (!table) return;
  var body = table.tBodies[0];
  var rows = Array.prototype.slice.call(body.rows);
  var texts = null;
  var filter = document.getElementById('filter');
  var state = document.getElementById('state');
  var count = document.getElementById('count');
  function apply() {
    var text = filter.value.toLowerCase();
    var wanted = state.value;
    if (text && !texts) texts = rows.map(function (row) { return row.textContent.toLowerCase(); });
    var shown = 0;
    rows.forEach(function (row, index) {
      var visible = (!wanted || row.getAttribute('data-state') === wanted) && (!text || texts[index].indexOf(text) !== -1);
      row.hidden = !visible;
      if (visible) shown += 1;
    });
    count.textContent = shown + ' of ' + rows.length + ' agents';
  }
  filter.addEventListener('input', apply);
  state.addEventListener('change', apply);
  var order = { column: -1, direction: 1 };
  Array.prototype.forEach.call(table.tHead.rows[0].cells, function (cell, column) {
    cell.addEventListener('click', function () {
      order.direction = order.column === column ? -order.direction : 1;
      order.column = column;
      var numeric = cell.classList.contains('n');
      var keyed = rows.map(function (row, index) {
        var target = row.cells[column];
        var value = target ? (target.getAttribute('data-v') || target.textContent) : '';
        return { row: row, index: index, key: numeric ? Number(value) || 0 : value.toLowerCase() };
      });
      keyed.sort(function (a, b) {
        if (a.key < b.key) return -order.direction;
        if (a.key > b.key) return order.direction;
        return a.index - b.index;
      });
      var fragment = document.createDocumentFragment();
      keyed.forEach(function (entry) { fragment.appendChild(entry.row); });
      body.appendChild(fragment);
    });
  });
  var timeline = document.getElementById('timeline');
  if (timeline) timeline.addEventListener('click', function (event) {
    var bar = event.target.closest ? event.target.closest('[data-seq]') : null;
    if (!bar) return;
    var row = document.getElementById('a' + bar.getAttribute('data-seq'));
    if (!row) return;
    if (row.hidden) { filter.value = ''; state.value = ''; apply(); }
    rows.forEach(function (other) { other.classList.remove('hit'); });
    row.classList.add('hit');
    row.scrollIntoView({ block: 'center' });
  });
})();
`;

/** No network, whatever the markup holds: the page may only use its own inline style and script. */
export const REPORT_POLICY =
  "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; base-uri 'none'; form-action 'none'";
