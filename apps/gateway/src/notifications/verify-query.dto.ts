import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { Rule, text } from '../common/rule.decorator';

const CHALLENGE = /^[\w-]{1,256}$/;

/**
 * The network's endpoint check: `hub.mode` and `hub.verify_token` are compared by the service
 * (a mismatch is 403); `hub.challenge` is echoed, so its form is checked here, first.
 */
export class VerifyQuery {
  @ApiPropertyOptional({ enum: ['subscribe'] })
  @IsOptional()
  @Rule('hubMode', (v) => text(v, { min: 0 }))
  'hub.mode'?: string;

  @ApiPropertyOptional({ description: 'CLOUD_API_VERIFY_TOKEN' })
  @IsOptional()
  @Rule('hubVerifyToken', (v) => text(v, { min: 0 }))
  'hub.verify_token'?: string;

  @ApiProperty({ pattern: CHALLENGE.source, example: '1158201444' })
  @Rule('hubChallenge', (v) => (typeof v === 'string' && CHALLENGE.test(v) ? null : 'must be the challenge to echo'))
  'hub.challenge'!: string;
}
