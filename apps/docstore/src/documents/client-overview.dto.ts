import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { HOURLY_WINDOW_NAMES, IsHourlyWindow, type HourlyWindowName } from '@app/pagination';

/** `GET /client/{client}/stats`: the window, 24h when absent. */
export class StatsQueryDto {
  @ApiPropertyOptional({ enum: HOURLY_WINDOW_NAMES, default: '24h' })
  @IsOptional()
  @IsHourlyWindow()
  window?: HourlyWindowName;
}

/** One (environment, context, type) triple holding live documents. */
export class CollectionDto {
  @ApiProperty({ example: 'production' })
  environment!: string;

  @ApiProperty({ example: 'shop' })
  context!: string;

  @ApiProperty({ example: 'product' })
  type!: string;

  @ApiProperty({ type: 'integer', minimum: 1, description: 'Live documents (soft-deleted and expired ones left out).', example: 12 })
  documents!: number;
}

const count = { type: 'integer', minimum: 0, example: 0 } as const;

export class WriteCountsDto {
  @ApiProperty(count)
  created!: number;

  @ApiProperty(count)
  updated!: number;

  @ApiProperty({ ...count, description: 'Soft-deleted in that hour and still deleted.' })
  deleted!: number;
}

export class DeliveryCountsDto {
  @ApiProperty(count)
  succeeded!: number;

  @ApiProperty(count)
  failed!: number;
}

export class DeliveryTotalsDto {
  @ApiProperty(count)
  total!: number;

  @ApiProperty({ type: DeliveryCountsDto })
  by_status!: DeliveryCountsDto;
}

/** One UTC hour of the window. */
export class StatsBucketDto {
  @ApiProperty({ format: 'date-time', example: '2026-11-25T20:00:00Z' })
  hour!: string;

  @ApiProperty({ ...count, description: 'Document writes.' })
  total!: number;

  @ApiProperty({ type: WriteCountsDto })
  by_status!: WriteCountsDto;

  @ApiProperty({ type: DeliveryTotalsDto, description: 'Webhook deliveries finished, by the hour of their event.' })
  webhook_deliveries!: DeliveryTotalsDto;
}

/** GET …/stats: per UTC hour, the document writes and the finished webhook deliveries the token may see, the current hour last. */
export class ClientStatsDto {
  @ApiProperty({ format: 'uuid' })
  client_id!: string;

  @ApiProperty({ enum: HOURLY_WINDOW_NAMES })
  window!: HourlyWindowName;

  @ApiProperty({ format: 'date-time', description: 'The first hour of the window.', example: '2026-11-24T21:00:00Z' })
  since!: string;

  @ApiProperty({ type: [StatsBucketDto], description: '24 or 168 buckets, oldest first.' })
  data!: StatsBucketDto[];
}
