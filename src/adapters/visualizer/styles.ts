/** The page's styles: system fonts only, so nothing is fetched. */
export const PAGE_STYLES = `
* { box-sizing: border-box; }
body { margin: 0; font: 13px/1.4 system-ui, sans-serif; color: #223; background: #fafbfc; }
header { display: flex; gap: 12px; align-items: center; padding: 6px 12px; background: #243447; color: #fff; }
header h1 { font-size: 16px; margin: 0; }
.badge { padding: 1px 8px; border-radius: 8px; background: #3b6ea5; font-size: 12px; }
.conn.down { color: #ffb4b4; }
main { display: grid; grid-template-columns: 260px 1fr 340px; gap: 8px; padding: 8px; height: calc(100vh - 40px); }
aside, #center { overflow: auto; background: #fff; border: 1px solid #dde; border-radius: 6px; padding: 6px 8px; }
h2 { font-size: 14px; margin: 4px 0 6px; }
h3 { font-size: 13px; margin: 4px 0; }
.tree, .tree ul { list-style: none; margin: 0; padding-left: 14px; }
.tree { padding-left: 0; }
.tree button { border: 0; background: none; padding: 1px 3px; cursor: pointer; font: inherit; color: #1b4f8a; }
.tree li.selected > button { background: #ffe9a8; border-radius: 3px; }
.tree .value { color: #666; font-family: ui-monospace, monospace; font-size: 11px; }
.chart { margin: 10px 0 18px; }
.chart h3 .showing { font-weight: normal; color: #666; font-family: ui-monospace, monospace; }
.chart svg { max-width: none; }
#timeline .phase-row { display: grid; grid-template-columns: 220px 1fr 230px; gap: 6px; align-items: center; height: 18px; font-size: 11px; }
#timeline .phase-row .name { font-family: ui-monospace, monospace; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
#timeline .track { position: relative; height: 12px; background: #f0f2f5; }
#timeline .bar { position: absolute; top: 0; height: 12px; min-width: 2px; background: #7aa7d6; }
#timeline .critical .bar { outline: 1px solid #243447; }
#timeline .dominant .bar { background: #d9822b; }
#timeline [data-outcome="failed"] .bar { background: #d33; }
#timeline [data-outcome="inProgress"] .bar { background: repeating-linear-gradient(45deg, #7aa7d6, #7aa7d6 4px, #b6d0ea 4px, #b6d0ea 8px); }
#timeline [data-outcome="notReached"] .name { color: #aaa; }
#timeline .detail { color: #555; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
#timeline .waiting { color: #b35c00; }
.stream { list-style: none; margin: 0; padding: 0; font-family: ui-monospace, monospace; font-size: 11px; }
.stream li { padding: 1px 2px; border-bottom: 1px solid #f0f0f0; cursor: default; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.stream li.input { color: #1b6b2f; }
.stream li.current { background: #ffe9a8; }
.stream .seq { color: #999; }
.dropped { background: #fff3cd; border: 1px solid #e0c36a; padding: 3px 6px; margin-bottom: 4px; }
.controls { display: flex; gap: 8px; align-items: center; margin: 4px 0; }
#scrubber { flex: 1; }
.replay-grid { display: grid; grid-template-columns: 1fr 1fr; gap: 10px; }
.story { list-style: none; margin: 0; padding: 0; font-family: ui-monospace, monospace; font-size: 11px; max-height: 240px; overflow: auto; }
.story li { padding: 1px 2px; border-bottom: 1px solid #f0f0f0; }
.story .cite { color: #1b4f8a; margin-left: 4px; }
.story .seq { color: #999; }
.note { color: #b35c00; font-size: 11px; margin: 2px 0; }
#payload { max-height: 260px; overflow: auto; background: #f6f8fa; padding: 6px; font-size: 11px; }
#states { border-collapse: collapse; font-size: 11px; width: 100%; }
#states td, #states th { border-bottom: 1px solid #eee; padding: 1px 4px; text-align: left; font-family: ui-monospace, monospace; }
`;
