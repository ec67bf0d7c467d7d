import { usageSeries, type Usage } from './usage';

describe('usageSeries', () => {
  it('charts all messages per day and the billable ones per category, 0 on days a category is absent', () => {
    const category = (name: string, billable: number) => ({ category: name, messages: billable + 1, billable, unit_price: 0.01, cost: billable * 0.01 });
    const usage: Usage = {
      phone_id: '1',
      from: '2026-11-29',
      to: '2026-11-30',
      currency: 'USD',
      totals: { messages: 9, billable: 6, cost: 0.06 },
      data: [
        { date: '2026-11-29', messages: 4, billable: 3, cost: 0.03, categories: [category('utility', 3)] },
        { date: '2026-11-30', messages: 5, billable: 3, cost: 0.03, categories: [category('marketing', 2), category('utility', 1)] },
      ],
    };
    expect(usageSeries(usage)).toEqual({
      labels: ['Messages', 'Billable: utility', 'Billable: marketing'],
      hours: [Date.UTC(2026, 10, 29) / 1000, Date.UTC(2026, 10, 30) / 1000],
      series: [
        { name: 'messages', values: [4, 5] },
        { name: 'billable utility', values: [3, 1] },
        { name: 'billable marketing', values: [0, 2] },
      ],
    });
  });
});
