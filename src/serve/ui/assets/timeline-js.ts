// The overview's chart, kept as a module so it ships inside dist/ and the bundle alike.
// Served as a file: the UI's Content-Security-Policy allows no inline script.
export const TIMELINE_JS = `
(async function () {
  var box = document.getElementById('timeline');
  if (!box || typeof uPlot === 'undefined') return;
  var response = await fetch('/api/timeline');
  var data = await response.json();
  if (!data.t.length) { box.textContent = 'Nothing fetched yet.'; return; }
  var label = 'responses per ' + (data.bucketSeconds >= 60 ? data.bucketSeconds / 60 + ' min' : data.bucketSeconds + ' s');
  var opts = {
    width: Math.max(320, box.clientWidth || 800),
    height: 240,
    series: [{}, { label: label, stroke: '#0b63c5', fill: 'rgba(11,99,197,0.12)' }],
    axes: [{}, { size: 60 }],
    // A crawl of a few seconds is one or two buckets: without padding, uPlot spreads a lone point over years.
    scales: { x: { time: true, auto: false, range: [data.t[0] - data.bucketSeconds, data.t[data.t.length - 1] + data.bucketSeconds] } },
  };
  var plot = new uPlot(opts, [data.t, data.n], box);
  window.addEventListener('resize', function () { plot.setSize({ width: Math.max(320, box.clientWidth), height: 240 }); });
})();
`;
