// Every <time datetime> of a UI page in the reader's own time zone, its UTC value kept on hover.
// Served as a file: the UI's Content-Security-Policy allows no inline script. Without script the
// page still reads: the server writes the UTC time as the element's text.
export const LOCAL_TIME_JS = `
(function () {
  var pad = function (n) { return (n < 10 ? '0' : '') + n; };
  function local(date) {
    var offset = -date.getTimezoneOffset();
    var sign = offset < 0 ? '-' : '+';
    var abs = Math.abs(offset);
    var zone = 'UTC' + (abs === 0 ? '' : sign + pad(Math.floor(abs / 60)) + (abs % 60 ? ':' + pad(abs % 60) : ''));
    return date.getFullYear() + '-' + pad(date.getMonth() + 1) + '-' + pad(date.getDate()) + ' ' +
      pad(date.getHours()) + ':' + pad(date.getMinutes()) + ':' + pad(date.getSeconds()) + ' ' + zone;
  }
  function show(root) {
    var times = root.querySelectorAll('time[datetime]:not([data-local])');
    for (var i = 0; i < times.length; i++) {
      var node = times[i];
      var date = new Date(node.getAttribute('datetime'));
      if (isNaN(date.getTime())) continue;
      node.setAttribute('data-local', '');
      node.title = date.toISOString();
      node.textContent = local(date);
    }
  }
  show(document);
  window.crawliteLocalTimes = show;
})();
`;
