import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** The JSON Schema that documents of one (client, environment, context, type) must satisfy. */
@Entity({ name: 'schemas' })
@Index('schemas_scope_uq', ['clientId', 'environment', 'context', 'type'], { unique: true })
export class SchemaEntity {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id!: number;

  @Column({ name: 'client_id', type: 'uuid' })
  clientId!: string;

  @Column({ type: 'varchar', length: 255 })
  environment!: string;

  @Column({ type: 'varchar', length: 255 })
  context!: string;

  @Column({ type: 'varchar', length: 255 })
  type!: string;

  @Column({ type: 'jsonb' })
  schema!: Record<string, unknown>;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt!: Date;
}
