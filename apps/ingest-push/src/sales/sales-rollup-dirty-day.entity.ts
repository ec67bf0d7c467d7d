import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * A day of an account whose lines changed after its rollup was computed: the merge adds one row per day it wrote
 * (and per day a line moved away from), in the upload's transaction; the refresher rebuilds the day and deletes
 * the rows it saw. Until then the summary reads that day from the lines.
 */
@Entity({ name: 'sales_rollup_dirty_days' })
@Index('sales_rollup_dirty_days_account_day_idx', ['accountId', 'day'])
export class SalesRollupDirtyDayEntity {
  @PrimaryGeneratedColumn({ type: 'bigint', primaryKeyConstraintName: 'sales_rollup_dirty_days_pkey' })
  id!: string;

  @Column({ name: 'account_id', type: 'uuid' })
  accountId!: string;

  /** `day` (written by the merge), or `month` (the 1st; written by a day's rebuild): the month's blocks are to be summed again. */
  @Column({ type: 'varchar', length: 8, default: 'day' })
  period!: string;

  @Column({ type: 'date' })
  day!: string;
}
