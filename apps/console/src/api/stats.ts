/** The chart's input: one numeric series per name over the hours (the console's own shape, not an answer). */
export interface Series {
  hours: number[];
  series: Array<{ name: string; values: number[] }>;
}

/**
 * Every service's statistics answer `{data: [{hour, ...counts}]}`: one bucket per UTC hour, counts either flat
 * (`inserted: 3`) or grouped (`by_status: {sent: 3}`, `by_platform: {android: {sent: 1}}`). `series` flattens them into
 * one numeric series per name (`sent`, `android.sent`), for the chart and its table.
 */
export function series<B extends { hour: string }>(answer: { data: readonly B[] }): Series {
  const names: string[] = [];
  const rows = answer.data.map((bucket) => {
    const flat: Record<string, number> = {};
    // Grouping keys (`by_status`, `by_platform`) add no name of their own: `webhook_deliveries.by_status.failed` is `webhook_deliveries.failed`.
    const walk = (prefix: string, value: unknown) => {
      if (typeof value === 'number') flat[prefix] = value;
      else if (value && typeof value === 'object' && !Array.isArray(value)) {
        for (const [k, v] of Object.entries(value as Record<string, unknown>)) walk(k.startsWith('by_') ? prefix : prefix ? `${prefix}.${k}` : k, v);
      }
    };
    for (const [k, v] of Object.entries(bucket as Record<string, unknown>)) if (k !== 'hour') walk(k.startsWith('by_') ? '' : k, v);
    for (const name of Object.keys(flat)) if (!names.includes(name)) names.push(name);
    return flat;
  });
  return {
    hours: answer.data.map((b) => Date.parse(b.hour) / 1000),
    series: names.map((name) => ({ name, values: rows.map((r) => r[name] ?? 0) })),
  };
}
