import { ApiProperty } from '@nestjs/swagger';
import { IsString, IsUUID, Length } from 'class-validator';

/** POST /api/pushm/opened: what the app read from the push's payload (`push_id`, `open_token`). */
export class PushOpenedDto {
  @ApiProperty({ format: 'uuid', description: 'The push id from the payload (FCM data / APNs custom key push_id).' })
  @IsUUID('all', { message: 'push_id must be the push id (a UUID) from the payload.' })
  push_id!: string;

  @ApiProperty({ minLength: 1, maxLength: 128, description: 'The open_token from the same payload.' })
  @IsString()
  @Length(1, 128)
  open_token!: string;
}

/** 200 to POST /api/pushm/opened. */
export class PushOpened {
  @ApiProperty({ format: 'uuid' }) push_id!: string;
  @ApiProperty({ format: 'date-time', description: 'The first open reported.' }) opened_at!: string;
  @ApiProperty({ description: 'true for the first report of this push; false for a repeat (counted once).' }) counted!: boolean;
}
