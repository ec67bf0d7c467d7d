import { useEffect, useRef, useSyncExternalStore } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { formatAxis, formatCount, type Series } from '../api/stats';

/** The theme's chart colours (CSS custom properties), read when the chart is drawn. */
function palette(el: HTMLElement) {
  const css = getComputedStyle(el);
  const v = (name: string) => css.getPropertyValue(name).trim();
  return {
    series: [1, 2, 3, 4, 5, 6].map((i) => v(`--chart-${i}`)),
    text: v('--text-muted'),
    grid: v('--chart-grid'),
  };
}

const DARK = '(prefers-color-scheme: dark)';
/** The system's theme, followed live: the canvas is redrawn in the other theme's colours when it changes. */
function useDark(): boolean {
  return useSyncExternalStore(
    (onChange) => {
      const query = matchMedia(DARK);
      query.addEventListener('change', onChange);
      return () => query.removeEventListener('change', onChange);
    },
    () => matchMedia(DARK).matches,
  );
}

const localHour = (s: number) => new Date(s * 1000).toLocaleString(undefined, { weekday: 'short', hour: 'numeric', minute: '2-digit' });
const utcHour = (s: number) => `${new Date(s * 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
/** A UTC day (usage is counted per UTC day): its date, the same in every zone. */
const utcDay = (s: number) => new Date(s * 1000).toLocaleDateString(undefined, { timeZone: 'UTC', weekday: 'short', month: 'short', day: 'numeric' });

/** How the x values (epoch seconds) read: hours in the viewer's zone with UTC beside them, or UTC days. */
const UNITS = {
  hour: {
    name: 'Hour',
    point: (v: number) => `${localHour(v)} (${utcHour(v)})`,
    tick: (t: number) => new Date(t * 1000).toLocaleTimeString(undefined, { hour: 'numeric' }),
  },
  day: {
    name: 'Day',
    point: utcDay,
    tick: (t: number) => new Date(t * 1000).toLocaleDateString(undefined, { timeZone: 'UTC', month: 'short', day: 'numeric' }),
  },
} as const;

/**
 * An hourly (or, with unit="day", daily) line chart (uPlot) sized to its container: human series labels, a y axis that fits its numbers (compact:
 * 1.2M), the hour in the viewer's zone with UTC on hover, no point markers. A table of the same numbers follows it
 * for screen readers (the canvas is hidden from them).
 */
export default function Chart({ data, title, labels, unit = 'hour' }: { data: Series; title: string; labels: string[]; unit?: keyof typeof UNITS }) {
  const x = UNITS[unit];
  const box = useRef<HTMLDivElement>(null);
  const dark = useDark();
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const colours = palette(el);
    const width = () => Math.max(260, el.clientWidth);
    const height = () => (el.clientWidth < 500 ? 200 : 240);
    const axis = { stroke: colours.text, grid: { stroke: colours.grid, width: 1 }, ticks: { stroke: colours.grid, width: 1 } };
    const plot = new uPlot(
      {
        width: width(),
        height: height(),
        legend: { live: true },
        cursor: { points: { size: 7 } },
        scales: { y: { range: (_u, _min, max) => [0, Math.max(4, Math.ceil(max * 1.1))] } },
        series: [
          { label: x.name, value: (_u, v) => (v == null ? '—' : x.point(v)) },
          ...data.series.map((s, i) => ({
            label: labels[i] ?? s.name,
            stroke: colours.series[i % colours.series.length],
            width: 2,
            points: { show: false },
            value: (_u: uPlot, v: number | null) => (v == null ? '—' : formatCount(v)),
          })),
        ],
        axes: [
          { ...axis, values: (_u, ticks) => ticks.map(x.tick) },
          {
            ...axis,
            values: (_u, ticks) => ticks.map(formatAxis),
            // As wide as its longest label, so no number is clipped.
            size: (_u, values) => (values ? Math.max(...values.map((t) => t.length)) * 8 + 24 : 40),
          },
        ],
      },
      [data.hours, ...data.series.map((s) => s.values)],
      el,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: width(), height: height() }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [data, labels, dark, x]);
  return (
    <figure className="chart-figure">
      <div ref={box} className="chart" role="img" aria-label={`${title}: ${unit === 'day' ? 'daily' : 'hourly'} chart; the same numbers follow as a table`} />
      <div className="sr-only">
        <table>
          <caption>
            {title}, by {unit}
          </caption>
          <thead>
            <tr>
              <th scope="col">{x.name}</th>
              {labels.map((l) => (
                <th key={l} scope="col">
                  {l}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {data.hours.map((h, i) => (
              <tr key={h}>
                <th scope="row">{x.point(h)}</th>
                {data.series.map((s) => (
                  <td key={s.name}>{formatCount(s.values[i])}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  );
}
