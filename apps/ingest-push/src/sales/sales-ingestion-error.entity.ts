import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { SalesIngestionEntity } from './sales-ingestion.entity';

/** One problem of one rejected record of an ingestion (the full list behind `.../errors`). */
@Entity({ name: 'sales_ingestion_errors' })
@Index('sales_ingestion_errors_ingestion_idx', ['ingestionId', 'record'])
export class SalesIngestionErrorEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id!: string;

  @Column({ name: 'ingestion_id', type: 'uuid' })
  ingestionId!: string;

  @ManyToOne(() => SalesIngestionEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'ingestion_id' })
  ingestion?: SalesIngestionEntity;

  @Column({ type: 'integer' })
  line!: number;

  @Column({ type: 'integer' })
  record!: number;

  @Column({ type: 'text' })
  field!: string;

  @Column({ type: 'text' })
  reason!: string;
}
