// Settings are converted by their declared types, which needs decorator metadata.
import 'reflect-metadata';
import { Matches } from 'class-validator';

/** `category=price` pairs, comma-separated: a category is lowercase letters and underscores, a price at most 6 decimals. */
export const PRICE_TABLE = /^[a-z_]{1,32}=\d{1,6}(\.\d{1,6})?(,[a-z_]{1,32}=\d{1,6}(\.\d{1,6})?)*$/;

/** The price table: what a billable message costs per pricing category (GET api/Usage), and what the sandbox reports as billable. */
export class PricingConfig {
  /** Price of one billable message per category, in PRICING_CURRENCY; a category priced 0 is free (the sandbox reports it not billable). */
  @Matches(PRICE_TABLE, { message: 'PRICING_TABLE must be category=price pairs, comma-separated (e.g. marketing=0.025,service=0)' })
  PRICING_TABLE: string = 'marketing=0.025,utility=0.004,authentication=0.004,service=0';

  /** The currency of PRICING_TABLE (ISO 4217). */
  @Matches(/^[A-Z]{3}$/, { message: 'PRICING_CURRENCY must be an ISO 4217 code such as USD' })
  PRICING_CURRENCY: string = 'USD';
}
