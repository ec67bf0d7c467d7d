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

/** What `total` counts in each service's statistics. */
const TOTALS: Record<string, string> = { docstore: 'All writes', gateway: 'All messages', ingestion: 'All rows', push: 'All pushes' };
const WORDS: Record<string, string> = { android: 'Android', ios: 'iOS', total: 'all', invalid_token: 'invalid token' };

/**
 * A series' name as people read it: `total` is what the service counts ("All messages"), `sent` is "Sent",
 * `webhook_deliveries.failed` is "Webhook deliveries: failed", `android.invalid_token` "Android: invalid token".
 */
export function seriesLabel(name: string, service: string): string {
  if (name === 'total') return TOTALS[service] ?? 'All';
  const words = name.split('.').map((part) => WORDS[part] ?? part.replace(/_/g, ' '));
  const text = words.length > 1 ? `${words.slice(0, -1).join(' ')}: ${words[words.length - 1]}` : words[0];
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** A count in the viewer's locale: 170,005. */
export function formatCount(n: number): string {
  return n.toLocaleString();
}

/** An amount (a price, or a sum the API sends as a decimal string) in the viewer's locale with `digits` decimals: 1,234.50. */
export function formatAmount(value: number | string, digits = 2): string {
  return Number(value).toLocaleString(undefined, { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** A count on an axis, short: 950, 1.2K, 1.2M (the locale's compact notation). */
export function formatAxis(n: number): string {
  return new Intl.NumberFormat(undefined, { notation: 'compact', maximumFractionDigits: 1 }).format(n);
}

/** Whether every value of every series is zero (nothing happened in the window). */
export function isEmpty(data: Series): boolean {
  return data.series.every((s) => s.values.every((v) => v === 0));
}
