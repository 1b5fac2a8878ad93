// The SQL and changes pages' styles: the query box, the schema list, result cells, diff lines.
export const SQL_CSS = `
#sql-form textarea { width: 100%; min-height: 7em; font: 14px/1.4 ui-monospace, monospace; padding: .5em; }
#sql-form .actions { display: flex; gap: 1em; align-items: center; margin: .4em 0 1em; }
.sql-layout { display: grid; grid-template-columns: minmax(0, 1fr) 16em; gap: 2em; }
@media (max-width: 800px) { .sql-layout { grid-template-columns: 1fr; } }
#relations { font-size: .9em; } #relations h3 { font-size: 1em; margin: .8em 0 .2em; }
#relations ul { list-style: none; padding: 0; margin: 0; }
#relations li { margin: .2em 0 .5em; }
#tables summary { cursor: pointer; margin-top: .8em; color: var(--muted); }
#relations .columns { color: var(--muted); font-size: .9em; }
#relations .columns button, #relations .query { font-size: .85em; padding: 0 .3em; border: 1px solid var(--line); background: var(--alt); color: var(--fg); border-radius: 3px; cursor: pointer; margin: 0 .1em .2em 0; }
#examples { font-size: .9em; } #examples ul { padding-left: 1.2em; margin: 0; } #examples li { margin: .2em 0; }
.results-wrap { overflow: auto; max-height: 70vh; border: 1px solid var(--line); }
#results td, #results th { white-space: pre-wrap; word-break: break-word; max-width: 40em; padding: .2em .5em; font-size: .9em; }
#results th { position: sticky; top: 0; background: var(--alt); }
#results td.null { color: var(--muted); font-style: italic; }
#results td.blob { color: var(--muted); }
#change-counts td, #change-counts th { width: auto; }
#diff { font: 13px/1.4 ui-monospace, monospace; background: var(--alt); padding: .6em 0; overflow: auto; max-height: none; }
#diff div { white-space: pre-wrap; word-break: break-word; padding: 0 .8em; }
#diff .add { background: rgba(46, 160, 67, .18); }
#diff .del { background: rgba(248, 81, 73, .18); }
#diff .hunk { color: var(--accent); }
#diff .file { color: var(--muted); }
`;
