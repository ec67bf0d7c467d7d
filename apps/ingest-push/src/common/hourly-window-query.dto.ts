import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { HOURLY_WINDOWS, type HourlyWindowName } from '@app/pagination';

const WINDOWS = Object.keys(HOURLY_WINDOWS) as HourlyWindowName[];

/** The query of an hourly statistics endpoint: `window` (24h, the default, or 7d); anything else (an array too) is 422. */
export class HourlyWindowQueryDto {
  @ApiPropertyOptional({ enum: WINDOWS, default: '24h' })
  @IsOptional()
  @IsIn(WINDOWS, { message: `The window field must be one of ${WINDOWS.join(', ')}.` })
  window?: HourlyWindowName;
}
