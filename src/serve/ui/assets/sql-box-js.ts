// The SQL page's query box: a view's "query" button fills it, a column's name is typed in
// where the cursor is, Ctrl+Enter (or Cmd+Enter) runs it. Served as a file: the UI's
// Content-Security-Policy allows no inline script. Without script the page still works:
// the links browse, the examples run, the box is a plain form.
export const SQL_BOX_JS = `
(function () {
  var box = document.getElementById('sql-box');
  if (!box) return;
  function put(text, replace) {
    if (replace) {
      box.value = text;
    } else {
      var start = box.selectionStart, end = box.selectionEnd;
      box.value = box.value.slice(0, start) + text + box.value.slice(end);
      box.selectionStart = box.selectionEnd = start + text.length;
    }
    box.focus();
  }
  document.addEventListener('click', function (event) {
    var target = event.target.closest && event.target.closest('[data-fill], [data-insert]');
    if (!target) return;
    event.preventDefault();
    if (target.hasAttribute('data-fill')) put(target.getAttribute('data-fill'), true);
    else put(target.getAttribute('data-insert'), false);
  });
  box.addEventListener('keydown', function (event) {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      box.form.requestSubmit();
    }
  });
})();
`;
