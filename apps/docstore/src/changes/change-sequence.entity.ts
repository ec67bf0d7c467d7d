import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * The feed's one counter row: the last cursor given out, and the cursor up to which retention
 * dropped changes (an older `since` is 410). Sequencers lock it, so they take turns.
 */
@Entity({ name: 'change_sequence' })
export class ChangeSequenceEntity {
  @PrimaryColumn({ type: 'smallint', primaryKeyConstraintName: 'change_sequence_pkey' })
  id!: number;

  @Column({ name: 'last_seq', type: 'bigint', default: 0 })
  lastSeq!: string;

  @Column({ name: 'pruned_through', type: 'bigint', default: 0 })
  prunedThrough!: string;
}
