// A small bar chart in SVG (no library): one group of bars per day, values as text for screen
// readers in a table beside it. Every value is set as an attribute or text, never as markup.

const NS = 'http://www.w3.org/2000/svg';

function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  for (const c of children) el.append(c);
  return el;
}

/**
 * barChart(days, [['sent', 'Sent'], ['delivered', 'Delivered']], 'Messages per day') → a figure
 * with an SVG chart (hidden from assistive technology) and a caption; `days` are {day, …figures}.
 * `format` writes a value (e.g. an amount in the account's currency).
 * @param {any[]} days
 * @param {[string, string][]} series
 * @param {string} title
 * @param {(v: number) => string} [format]
 */
export function barChart(days, series, title, format = String) {
  const width = 720;
  const height = 160;
  const pad = 24;
  // The tallest bar is the highest value (amounts below 1 too); all zero: an empty chart, its
  // scale said as 0 (the bars are drawn against 1, not 0).
  const highest = Math.max(0, ...days.flatMap((d) => series.map(([key]) => Number(d[key]) || 0)));
  const max = highest || 1;
  const slot = (width - pad) / Math.max(1, days.length);
  const bar = Math.max(1, (slot - 2) / series.length);
  const chart = svg('svg', {
    viewBox: `0 0 ${width} ${height + 4}`,
    class: 'chart',
    role: 'img',
    'aria-label': `${title}: ${series.map(([key, label]) => `${label} ${format(days.reduce((n, d) => n + (Number(d[key]) || 0), 0))}`).join(', ')}`,
  });
  chart.append(svg('line', { x1: pad, y1: height, x2: width, y2: height, class: 'axis' }));

  days.forEach((d, i) => {
    series.forEach(([key, label], j) => {
      const v = Number(d[key]) || 0;
      const h = Math.round((v / max) * (height - 8));
      const rect = svg('rect', {
        x: pad + i * slot + j * bar,
        y: height - h,
        width: bar,
        height: h,
        class: `bar bar-${j}`,
      });
      rect.append(svg('title', {}, `${d.day} · ${label}: ${format(v)}`));
      chart.append(rect);
    });
  });
  // The scale and the first and last days as page text under the chart, not SVG text that
  // shrinks with it (about 4 px on a phone) or is cut at its right edge ("11-2" for "11-28").
  const axis = document.createElement('p');
  axis.className = 'chart-axis';
  for (const text of [
    days[0]?.day ?? '',
    `Highest: ${format(highest)}`,
    days.length > 1 ? days[days.length - 1].day : '',
  ]) {
    const span = document.createElement('span');
    span.textContent = text;
    axis.append(span);
  }
  const legend = document.createElement('p');
  legend.className = 'legend';
  series.forEach(([, label], j) => {
    const key = document.createElement('span');
    key.className = `key key-${j}`;
    key.textContent = label;
    legend.append(key);
  });
  const figure = document.createElement('figure');
  const caption = document.createElement('figcaption');
  caption.textContent = title;
  figure.append(caption, chart, axis, legend);
  return figure;
}
