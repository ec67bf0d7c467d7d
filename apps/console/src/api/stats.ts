/**
 * Every service's statistics answer `{data: [{hour, ...counts}]}`: one bucket per UTC hour, counts either flat
 * (`inserted: 3`) or grouped (`by_status: {sent: 3}`, `android: {sent: 1}`). `series` flattens them into one
 * numeric series per name (grouped ones as `group.name`), for the chart and its table.
 */
export interface StatsAnswer {
  data: Array<{ hour: string } & Record<string, unknown>>;
}

export interface Series {
  hours: number[];
  series: Array<{ name: string; values: number[] }>;
}

export function series(answer: StatsAnswer): Series {
  const names: string[] = [];
  const rows = answer.data.map((bucket) => {
    const flat: Record<string, number> = {};
    const walk = (prefix: string, value: unknown) => {
      if (typeof value === 'number') flat[prefix] = value;
      else if (value && typeof value === 'object' && !Array.isArray(value)) {
        for (const [k, v] of Object.entries(value as Record<string, unknown>)) walk(prefix ? `${prefix}.${k}` : k, v);
      }
    };
    for (const [k, v] of Object.entries(bucket)) if (k !== 'hour') walk(k === 'by_status' ? '' : k, v);
    for (const name of Object.keys(flat)) if (!names.includes(name)) names.push(name);
    return flat;
  });
  return {
    hours: answer.data.map((b) => Date.parse(b.hour) / 1000),
    series: names.map((name) => ({ name, values: rows.map((r) => r[name] ?? 0) })),
  };
}
