import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Allow, IsIn, IsOptional } from 'class-validator';
import { HOURLY_WINDOWS, PageOf, type HourlyWindowName } from '@app/pagination';
import { INGESTION_STAGES, INGESTION_STATUSES, type IngestionStage, type IngestionStatus } from './sales-ingestion.entity';
import type { SalesFormat } from './sales-copy.transform';

/** GET …/ingestions: `status` filters (an array or another value is 422); `page` and `per_page` are read by the paging decorator. */
export class IngestionListQueryDto {
  @ApiPropertyOptional({ enum: INGESTION_STATUSES })
  @IsOptional()
  @IsIn(INGESTION_STATUSES, { message: `The status field must be one of ${INGESTION_STATUSES.join(', ')}.` })
  status?: IngestionStatus;

  // Validated and documented by @PageRequest(); allowed here so the DTO does not refuse them as unknown.
  @Allow() page?: unknown;
  @Allow() per_page?: unknown;
}

/** One problem of one record: where it is in the file (line, 1-based record number) and why. */
export class RowError {
  @ApiProperty({ example: 3 }) line!: number;
  @ApiProperty({ example: 2 }) record!: number;
  @ApiProperty({ example: 'ProductPrice', description: 'The Sale field, or empty when the record could not be read at all.' }) field!: string;
  @ApiProperty({ example: 'must be a number with a decimal part, such as 10.0' }) reason!: string;
}

/** An ingestion as GET …/ingestions lists it: the summary without its row errors. */
export class IngestionListItem {
  @ApiProperty({ format: 'uuid' }) ingestion_id!: string;
  @ApiProperty({ enum: INGESTION_STATUSES, example: 'completed' }) status!: IngestionStatus;
  @ApiProperty({
    enum: INGESTION_STAGES,
    nullable: true,
    description: 'While running: receiving (the body), storing (its last rows), merging (into sales); null once ended.',
  })
  stage!: IngestionStage | null;
  @ApiProperty({ enum: ['csv', 'json', 'ndjson'] }) format!: SalesFormat;
  @ApiProperty({ description: 'Body bytes received (after decompression, for a compressed body).', example: 288 }) bytes!: number;
  @ApiProperty({ description: 'Records read.', example: 2 }) received!: number;
  @ApiProperty({ example: 1 }) inserted!: number;
  @ApiProperty({ example: 0 }) updated!: number;
  @ApiProperty({ example: 1 }) rejected!: number;
  @ApiProperty({ description: 'Problems found, stored or not.', example: 1 }) error_count!: number;
  @ApiProperty({ description: 'Problems counted but not stored (past INGEST_MAX_STORED_ERRORS).', example: 0 }) errors_not_stored!: number;
  @ApiProperty({
    description: 'Customers (CPF/CNPJ) of this upload whose personal data the account had erased before: stored again, as new data.',
    example: 0,
  })
  erased_customers!: number;
  @ApiProperty({ type: String, nullable: true, description: 'Why it failed or was cancelled; nothing was kept.' }) failure!: string | null;
  @ApiProperty({ format: 'date-time' }) started_at!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) finished_at!: string | null;
  @ApiProperty({ description: 'Until finished_at, or until now while running.', example: 37 }) duration_ms!: number;
}

/** The answer of an upload, of GET and of DELETE …/ingestions/{id}. */
export class IngestionSummary extends IngestionListItem {
  @ApiProperty({ type: [RowError], description: 'The first 100 problems; GET …/errors gives every stored one.' })
  errors!: RowError[];
}

export const IngestionPage = PageOf(IngestionListItem, 'IngestionPage');

/** Rows of an hour's completed ingestions. */
export class IngestionRowCounts {
  @ApiProperty() inserted!: number;
  @ApiProperty() updated!: number;
  @ApiProperty() rejected!: number;
}

export class IngestionHour {
  @ApiProperty({ example: '2026-11-25T20:00:00Z', description: 'The UTC hour the ingestions started.' }) hour!: string;
  @ApiProperty() total!: number;
  @ApiProperty({ type: IngestionRowCounts }) by_status!: IngestionRowCounts;
}

/** GET …/sales/stats: rows of completed ingestions per UTC hour, the current hour last. */
export class IngestionStats {
  @ApiProperty({ enum: Object.keys(HOURLY_WINDOWS) }) window!: HourlyWindowName;
  @ApiProperty({ example: '2026-11-24T21:00:00Z' }) since!: string;
  @ApiProperty({ type: [IngestionHour] }) data!: IngestionHour[];
}
