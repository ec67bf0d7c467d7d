import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { Series } from '../api/stats';

const COLOURS = ['#1f6feb', '#2da44e', '#bf8700', '#cf222e', '#8250df', '#0a7ea4', '#bc4c00', '#57606a'];

/** An hourly line chart (uPlot), sized to its container; the totals of the same series follow it as text. */
export default function Chart({ data, title }: { data: Series; title: string }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const width = () => Math.max(280, el.clientWidth);
    const plot = new uPlot(
      {
        title,
        width: width(),
        height: 220,
        series: [{}, ...data.series.map((s, i) => ({ label: s.name, stroke: COLOURS[i % COLOURS.length], width: 2 }))],
        axes: [{}, { size: 50 }],
      },
      [data.hours, ...data.series.map((s) => s.values)],
      el,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: width(), height: 220 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [data, title]);
  return <div ref={box} className="chart" role="img" aria-label={`${title}: hourly chart; the totals follow it`} />;
}
