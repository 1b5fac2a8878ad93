// The UI's stylesheet, kept as a module so it ships inside dist/ and the bundle alike.
export const STYLE_CSS = `
:root { color-scheme: light dark; --fg: #1d1f21; --muted: #666; --line: #ddd; --accent: #0b63c5; --bg: #fff; --alt: #f6f7f9; }
@media (prefers-color-scheme: dark) { :root { --fg: #ddd; --muted: #999; --line: #333; --accent: #6aa9ff; --bg: #16181b; --alt: #1e2124; } }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.45 system-ui, sans-serif; color: var(--fg); background: var(--bg); }
nav { display: flex; gap: 1.2em; align-items: center; padding: .6em 1.2em; border-bottom: 1px solid var(--line); background: var(--alt); }
nav .brand { font-weight: 600; }
nav form { margin-left: auto; }
main { padding: 1em 1.2em 3em; max-width: 1200px; }
a { color: var(--accent); text-decoration: none; }
a:hover { text-decoration: underline; }
h1 { font-size: 1.4em; margin: .2em 0 .6em; word-break: break-all; }
h2 { font-size: 1.1em; margin: 1.6em 0 .5em; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .25em .6em .25em 0; border-bottom: 1px solid var(--line); vertical-align: top; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
td.url { word-break: break-all; }
table#urls td.url { min-width: 12em; }
table#urls td.num { white-space: nowrap; }
td.title { min-width: 8em; max-width: 24em; overflow-wrap: break-word; }
td.type { font-size: .9em; overflow-wrap: break-word; }
td.time { min-width: 10.5em; font-size: .9em; font-variant-numeric: tabular-nums; }
form.filters select { max-width: 16em; }
details > summary { cursor: pointer; margin: .8em 0 .4em; color: var(--muted); }
.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(260px, 1fr)); gap: 1em 2em; }
.muted { color: var(--muted); }
pre { background: var(--alt); padding: .8em; overflow: auto; max-height: 40em; white-space: pre-wrap; word-break: break-all; }
form.filters { display: flex; flex-wrap: wrap; gap: .6em; align-items: end; margin-bottom: 1em; }
form.filters label { display: flex; flex-direction: column; font-size: .85em; color: var(--muted); }
input, select, button { font: inherit; }
img#screenshot { max-width: 100%; max-height: 70vh; border: 1px solid var(--line); }
.screenshot-mark { text-decoration: none; color: var(--muted); }
iframe#replay { width: 100%; height: 70vh; border: 1px solid var(--line); background: #fff; }
body.bare { overflow: hidden; }
#replay-bar { display: flex; align-items: center; gap: .55em; height: 2.5rem; line-height: 2.5rem; padding: 0 1.2em; overflow: hidden; white-space: nowrap; border-bottom: 1px solid var(--line); background: var(--alt); }
#replay-bar > * { flex: none; } #replay-bar .brand { font-weight: 600; }
#replay-bar #replay-url { flex: 0 3 auto; min-width: 8em; overflow: hidden; text-overflow: ellipsis; }
#replay-bar #replay-fuzzy { flex: 0 1 auto; min-width: 14em; overflow: hidden; text-overflow: ellipsis; color: #8a5a00; }
#replay-bar a.off { color: var(--muted); } #replay-bar .replay-steps a { margin: 0 .2em; }
iframe#replay.replay-view { position: fixed; top: 2.5rem; left: 0; width: 100%; height: calc(100% - 2.5rem); border: 0; }
#captures { padding-left: 1.5em; } #captures li.selected { font-weight: bold; } #captures li[data-change="unchanged"] a, #captures li[data-change="304 not modified"] a { color: var(--muted); }
#timeline { min-height: 240px; }
.error { color: #c0392b; }
mark { background: #ffe98a; color: #000; }
ol.hits li { margin-bottom: .9em; }
.pager { margin-top: 1em; }
`;
