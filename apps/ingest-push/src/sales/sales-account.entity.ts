import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** Who owns sales rows and ingestions; every API key belongs to one. */
@Entity({ name: 'sales_accounts' })
export class SalesAccountEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ type: 'varchar', length: 255 })
  name!: string;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;
}
