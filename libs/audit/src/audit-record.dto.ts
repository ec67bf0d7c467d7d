import { ApiProperty, ApiPropertyOptional, IntersectionType } from '@nestjs/swagger';
import { Expose } from 'class-transformer';
import { IsISO8601, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { PageQueryDto } from '@app/pagination';

export class AuditActorDto {
  @ApiProperty({ description: 'The credential that made the change (`cli` for the command line).', example: '0b7f3c1e-8f6a-4c39-9d0e-2a7b5e4c1f00' })
  credential_id!: string;

  @ApiProperty({ type: 'string', nullable: true, description: "The credential's name.", example: 'deploy bot' })
  name!: string | null;

  @ApiProperty({ type: 'string', nullable: true, description: 'The client address, as seen through the configured proxies.', example: '203.0.113.7' })
  ip!: string | null;
}

/** One audit record, as every service shows it. */
export class AuditRecordDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ description: '`<target>.<verb>`.', example: 'token.revoked' })
  action!: string;

  @ApiProperty({ example: 'token' })
  target_type!: string;

  @ApiProperty({ example: '0b7f3c1e-8f6a-4c39-9d0e-2a7b5e4c1f00' })
  target_id!: string;

  @ApiProperty({ type: AuditActorDto })
  actor!: AuditActorDto;

  @ApiProperty({ format: 'date-time', example: '2026-12-06T23:40:00.123456Z' })
  at!: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    description: 'The changed fields before the change (secrets as `***`); null for a creation.',
  })
  before!: Record<string, unknown> | null;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    description: 'The changed fields after the change (secrets as `***`); null for a removal.',
  })
  after!: Record<string, unknown> | null;
}

const ACTION = /^[a-z_]+\.[a-z_]+$/;

/** `GET …/audit`'s filters (all optional, combined); each app adds its own paging parameters. */
export class AuditFilterDto {
  @ApiPropertyOptional({ description: 'Only this action.', example: 'token.revoked', maxLength: 64 })
  @Expose()
  @IsOptional()
  @IsString()
  @MaxLength(64)
  @Matches(ACTION, { message: 'The action field must look like token.revoked.' })
  action?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'Records at or after this moment.' })
  @Expose()
  @IsOptional()
  @IsISO8601({ strict: true })
  from?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'Records before this moment.' })
  @Expose()
  @IsOptional()
  @IsISO8601({ strict: true })
  to?: string;
}

/** `GET …/audit`'s query with `page`/`per_page` paging (the docstore's). */
export class AuditQueryDto extends IntersectionType(PageQueryDto, AuditFilterDto) {}
