import { ApiProperty } from '@nestjs/swagger';

/** One pricing category's messages on one day. */
export class UsageCategory {
  @ApiProperty({ description: 'The pricing category the network reported: marketing, utility, authentication, service…', example: 'utility' })
  category!: string;

  @ApiProperty({ type: 'integer', example: 12 })
  messages!: number;

  @ApiProperty({ type: 'integer', description: 'Of them, the ones the network bills.', example: 12 })
  billable!: number;

  @ApiProperty({
    type: 'number',
    nullable: true,
    description: 'Price of one billable message (PRICING_TABLE); null when the table has no price for the category.',
    example: 0.004,
  })
  unit_price!: number | null;

  @ApiProperty({ type: 'number', description: 'billable × unit_price.', example: 0.048 })
  cost!: number;
}

/** One day (UTC) of a phone's messages. */
export class UsageDay {
  @ApiProperty({ example: '2026-11-27' })
  date!: string;

  @ApiProperty({ type: 'integer', description: 'Messages sent that day, priced or not yet.', example: 13 })
  messages!: number;

  @ApiProperty({ type: 'integer', example: 12 })
  billable!: number;

  @ApiProperty({ type: 'number', example: 0.048 })
  cost!: number;

  @ApiProperty({ type: [UsageCategory], description: 'Messages whose statuses carried pricing, by category (largest first).' })
  categories!: UsageCategory[];
}

class UsageTotals {
  @ApiProperty({ type: 'integer', example: 130 })
  messages!: number;

  @ApiProperty({ type: 'integer', example: 120 })
  billable!: number;

  @ApiProperty({ type: 'number', example: 0.48 })
  cost!: number;
}

/** GET api/Usage: every day of the range, oldest first, and the totals. */
export class Usage {
  @ApiProperty({ example: '106540352242922' })
  phone_id!: string;

  @ApiProperty({ example: '2026-11-01' })
  from!: string;

  @ApiProperty({ example: '2026-11-30' })
  to!: string;

  @ApiProperty({ description: 'The currency of every price and cost (PRICING_CURRENCY).', example: 'USD' })
  currency!: string;

  @ApiProperty({ type: UsageTotals })
  totals!: UsageTotals;

  @ApiProperty({ type: [UsageDay] })
  data!: UsageDay[];
}
