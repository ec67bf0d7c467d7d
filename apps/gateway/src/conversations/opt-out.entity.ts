import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A contact who opted out of an account's marketing templates and free-form messages (a keyword, or by hand). */
@Entity({ name: 'opt_outs' })
export class OptOutEntity {
  @PrimaryColumn({ name: 'account_id', type: 'uuid' })
  accountId!: string;

  @PrimaryColumn({ name: 'wa_id', type: 'varchar', length: 32 })
  waId!: string;

  /** `keyword` (an inbound message) or `api` (PUT api/OptOuts/{wa_id}). */
  @Column({ type: 'varchar', length: 16 })
  source!: string;

  /** The keyword as the contact wrote it. */
  @Column({ type: 'varchar', length: 64, nullable: true })
  keyword!: string | null;

  @Column({ name: 'opted_out_at', type: 'timestamptz', default: () => 'now()' })
  optedOutAt!: Date;
}
