import type { components } from './generated/gateway';
import type { Series } from './stats';

export type Usage = components['schemas']['Usage'];

/** The usage chart's input: all messages sent per day, and the billable ones per pricing category (one series each), with their labels. */
export function usageSeries(usage: Usage): Series & { labels: string[] } {
  const categories = [...new Set(usage.data.flatMap((d) => d.categories.map((c) => c.category)))];
  return {
    labels: ['Messages', ...categories.map((category) => `Billable: ${category.replace(/_/g, ' ')}`)],
    hours: usage.data.map((d) => Date.parse(`${d.date}T00:00:00Z`) / 1000),
    series: [
      { name: 'messages', values: usage.data.map((d) => d.messages) },
      ...categories.map((category) => ({
        name: `billable ${category}`,
        values: usage.data.map((d) => d.categories.find((c) => c.category === category)?.billable ?? 0),
      })),
    ],
  };
}
