import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * The totals of one account's lines of one UTC day (or block of a month's days), per key of one grouping dimension (`day`: one row, no key),
 * as the summary adds them up: orders (an order counts once per day it has lines on, in each key), lines,
 * quantity, and revenue and discount as exact numerics. Rebuilt from the lines by the rollup refresher.
 */
@Entity({ name: 'sales_daily_rollups' })
@Index('sales_daily_rollups_account_dimension_period_day_idx', ['accountId', 'dimension', 'period', 'day'])
@Index('sales_daily_rollups_months_without_blocks_idx', ['accountId', 'day'], { where: "dimension = 'day' AND period = 'month' AND NOT with_blocks" })
export class SalesRollupEntity {
  @PrimaryGeneratedColumn({ type: 'bigint', primaryKeyConstraintName: 'sales_daily_rollups_pkey' })
  id!: string;

  @Column({ name: 'account_id', type: 'uuid' })
  accountId!: string;

  @Column({ type: 'varchar', length: 16 })
  dimension!: string;

  /** `day`, or a block of days (RollupPeriod): the sum of its day rows, `day` its first (`month`: the 1st). */
  @Column({ type: 'varchar', length: 8 })
  period!: string;

  @Column({ type: 'date' })
  day!: string;

  /** On a `month` row: its blocks were summed with it (a replica of the version before sums month rows only). */
  @Column({ name: 'with_blocks', type: 'boolean', default: false })
  withBlocks!: boolean;

  @Column({ type: 'text', nullable: true })
  key!: string | null;

  @Column({ type: 'integer' })
  orders!: number;

  @Column({ type: 'integer' })
  lines!: number;

  @Column({ type: 'bigint' })
  quantity!: string;

  @Column({ type: 'numeric' })
  revenue!: string;

  @Column({ type: 'numeric' })
  discount!: string;
}
