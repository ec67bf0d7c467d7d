import { Injectable } from '@nestjs/common';
import { PhonesService } from '../accounts/phones.service';
import type { PhoneContext } from '../network/chat-provider';
import { fromMicros, pricesOf } from '../pricing/price-table';
import { PricingConfig } from '../pricing/pricing.config';
import { MessagesRepository } from './messages.repository';
import type { Usage, UsageCategory, UsageDay } from './usage-answers.dto';
import { usageRange, type UsageQuery } from './usage-query.dto';

const DAY_MS = 86_400_000;

/** GET api/Usage: counts from the messages' recorded pricing, costs from today's price table. */
@Injectable()
export class UsageService {
  constructor(
    private readonly config: PricingConfig,
    private readonly messages: MessagesRepository,
    private readonly phones: PhonesService,
  ) {}

  async usage(own: PhoneContext, query: UsageQuery): Promise<Usage> {
    const phone = await this.phones.select(own, query.phone_id);
    const { first, end } = usageRange(query);
    const prices = pricesOf(this.config.PRICING_TABLE);
    const days = new Map<string, UsageDay & { micros: number }>();
    for (let at = first; at < end; at += DAY_MS) {
      const date = new Date(at).toISOString().slice(0, 10);
      days.set(date, { date, messages: 0, billable: 0, cost: 0, categories: [], micros: 0 });
    }
    const rows = await this.messages.usage(phone.phoneRef, new Date(first).toISOString(), new Date(end).toISOString());
    for (const row of rows) {
      const day = days.get(row.day);
      if (!day) continue;
      day.messages += row.messages;
      if (row.category === null) continue;
      const unit = prices.get(row.category);
      const micros = row.billable * (unit ?? 0);
      const category: UsageCategory = {
        category: row.category,
        messages: row.messages,
        billable: row.billable,
        unit_price: unit === undefined ? null : fromMicros(unit),
        cost: fromMicros(micros),
      };
      day.categories.push(category);
      day.billable += row.billable;
      day.micros += micros;
    }
    const totals = { messages: 0, billable: 0, cost: 0 };
    let totalMicros = 0;
    const data = [...days.values()].map(({ micros, ...day }) => {
      day.cost = fromMicros(micros);
      day.categories.sort((a, b) => b.messages - a.messages || a.category.localeCompare(b.category));
      totals.messages += day.messages;
      totals.billable += day.billable;
      totalMicros += micros;
      return day;
    });
    totals.cost = fromMicros(totalMicros);
    const last = new Date(end - DAY_MS).toISOString().slice(0, 10);
    return { phone_id: phone.phoneId, from: data[0].date, to: last, currency: this.config.PRICING_CURRENCY, totals, data };
  }
}
