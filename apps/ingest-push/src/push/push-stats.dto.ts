import { ApiProperty } from '@nestjs/swagger';
import { HOURLY_WINDOWS, type HourlyWindowName } from '@app/pagination';
import type { Platform } from './push-payload';

/** Pushes that ended in an hour, by how they ended (`invalid`: the provider called the token invalid). */
export class PushOutcomes {
  @ApiProperty() sent!: number;
  @ApiProperty() failed!: number;
  @ApiProperty() invalid!: number;
}

export class PushOutcomesByPlatform implements Record<Platform, PushOutcomes> {
  @ApiProperty({ type: PushOutcomes }) android!: PushOutcomes;
  @ApiProperty({ type: PushOutcomes }) ios!: PushOutcomes;
  @ApiProperty({ type: PushOutcomes }) web!: PushOutcomes;
}

export class PushHour {
  @ApiProperty({ example: '2026-11-25T20:00:00Z', description: 'The UTC hour the pushes ended.' }) hour!: string;
  @ApiProperty() total!: number;
  @ApiProperty({ description: 'Opens the app reported in this hour (each push counted once, in the hour of its first open).' }) opened!: number;
  @ApiProperty({ type: PushOutcomes }) by_status!: PushOutcomes;
  @ApiProperty({ type: PushOutcomesByPlatform }) by_platform!: PushOutcomesByPlatform;
}

/** GET /api/pushm/stats: finished pushes per UTC hour of their end, in all and by platform, the current hour last. */
export class PushStats {
  @ApiProperty({ enum: Object.keys(HOURLY_WINDOWS) }) window!: HourlyWindowName;
  @ApiProperty({ example: '2026-11-24T21:00:00Z' }) since!: string;
  @ApiProperty({ description: 'Pushes sent in the window.' }) sent!: number;
  @ApiProperty({ description: 'Opens reported in the window.' }) opened!: number;
  @ApiProperty({ type: Number, nullable: true, example: 0.125, description: 'opened / sent over the window; null while none is sent.' })
  open_rate!: number | null;
  @ApiProperty({ type: [PushHour] }) data!: PushHour[];
}
