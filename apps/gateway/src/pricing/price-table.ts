import type { StatusPricing } from '../network/network-events';

/** Prices in millionths of the currency unit, so sums stay exact. */
const MICROS = 1_000_000;

const PARSED = new Map<string, ReadonlyMap<string, number>>();

/** The price of one billable message per category, in millionths, from a PRICING_TABLE value (checked at start). */
export function pricesOf(table: string): ReadonlyMap<string, number> {
  let prices = PARSED.get(table);
  if (!prices) {
    prices = new Map(
      table.split(',').map((pair) => {
        const [category, price] = pair.split('=');
        return [category, Math.round(Number(price) * MICROS)];
      }),
    );
    PARSED.set(table, prices);
  }
  return prices;
}

/** `micros` millionths as a number of the currency unit (6 decimals at most). */
export function fromMicros(micros: number): number {
  return Math.round(micros) / MICROS;
}

/** The pricing category of a message: a template's category, anything else `service` (a reply within the customer-service window). */
export function pricingCategory(templateCategory: string | null): string {
  return templateCategory ? templateCategory.toLowerCase() : 'service';
}

/**
 * The `pricing` the sandbox reports with a status, from the price table: per-message pricing (`PMP`), billable when the
 * category has a price above 0; `type` is `free_customer_service` for service messages, else `regular`.
 */
export function sandboxPricing(category: string, prices: ReadonlyMap<string, number>): StatusPricing {
  return {
    billable: (prices.get(category) ?? 0) > 0,
    pricing_model: 'PMP',
    category,
    type: category === 'service' ? 'free_customer_service' : 'regular',
  };
}
