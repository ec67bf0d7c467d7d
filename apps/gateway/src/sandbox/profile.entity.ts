import { Column, Entity, PrimaryColumn } from 'typeorm';

/** The business profile the sandbox keeps for one phone (with cloud the network keeps it); deleted only with the phone. */
@Entity({ name: 'profiles' })
export class ProfileEntity {
  @PrimaryColumn({ name: 'phone_ref', type: 'uuid' })
  phoneRef!: string;

  /** The profile's fields as the network returns them. */
  @Column({ type: 'jsonb' })
  fields!: Record<string, unknown>;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt!: Date;
}
