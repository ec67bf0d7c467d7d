import { ApiProperty } from '@nestjs/swagger';
import { IsInt, IsOptional, Matches, Max, Min } from 'class-validator';

const HH_MM = /^([01][0-9]|2[0-3]):[0-5][0-9]$/;

/** PUT /api/pushm/settings: the whole settings (a field left out or null is cleared). */
export class PushSettingsDto {
  @ApiProperty({
    type: Number,
    nullable: true,
    required: false,
    minimum: 1,
    maximum: 1000,
    example: 3,
    description: 'Frequency cap: most pushes to one device token in any cap_window_hours.',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1000)
  cap_max_pushes?: number | null;

  @ApiProperty({
    type: Number,
    nullable: true,
    required: false,
    minimum: 1,
    maximum: 720,
    example: 24,
    description: 'The sliding window of the cap, in hours (with cap_max_pushes).',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(720)
  cap_window_hours?: number | null;

  @ApiProperty({
    type: String,
    nullable: true,
    required: false,
    pattern: HH_MM.source,
    example: '22:00',
    description: "Quiet hours start, HH:MM on each item's wall clock.",
  })
  @IsOptional()
  @Matches(HH_MM, { message: 'quiet_start must be a time HH:MM (00:00 to 23:59).' })
  quiet_start?: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    required: false,
    pattern: HH_MM.source,
    example: '08:00',
    description: 'Quiet hours end, HH:MM (before quiet_start: they span midnight).',
  })
  @IsOptional()
  @Matches(HH_MM, { message: 'quiet_end must be a time HH:MM (00:00 to 23:59).' })
  quiet_end?: string | null;
}

/** GET/PUT /api/pushm/settings: the account's settings (null: not set). */
export class PushSettings {
  @ApiProperty({ type: Number, nullable: true, example: 3 }) cap_max_pushes!: number | null;
  @ApiProperty({ type: Number, nullable: true, example: 24 }) cap_window_hours!: number | null;
  @ApiProperty({ type: String, nullable: true, example: '22:00' }) quiet_start!: string | null;
  @ApiProperty({ type: String, nullable: true, example: '08:00' }) quiet_end!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'Last change; null when never set.' }) updated_at!: string | null;
}
