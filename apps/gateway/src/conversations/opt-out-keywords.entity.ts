import { Column, Entity, PrimaryColumn } from 'typeorm';

/** An account's own opt-out and opt-in keywords (without a row, the defaults apply), stored folded (upper case, no accents). */
@Entity({ name: 'opt_out_keywords' })
export class OptOutKeywordsEntity {
  @PrimaryColumn({ name: 'account_id', type: 'uuid' })
  accountId!: string;

  @Column({ name: 'opt_out', type: 'text', array: true })
  optOut!: string[];

  @Column({ name: 'opt_in', type: 'text', array: true })
  optIn!: string[];

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt!: Date;
}
