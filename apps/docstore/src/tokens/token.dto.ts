import { ApiProperty, ApiPropertyOptional, OmitType } from '@nestjs/swagger';
import { IsIn, IsISO8601, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import { IsTokenScopes } from './token-scopes.validator';
import type { TokenStatus } from './token.entity';
import type { TokenScopes } from './token-scopes';

/** Longest token name. */
export const TOKEN_NAME_MAX_LENGTH = 255;

const SCOPE_LIST = { type: 'array', items: { type: 'string' }, example: ['document:read'] } as const;
/** Token scopes, in requests and answers alike. */
const SCOPES_DOC = {
  description: 'Flat array of scopes, or {permissions, document_rules:[{environment, context, permissions}]}; * grants all.',
  oneOf: [
    SCOPE_LIST,
    {
      type: 'object',
      required: ['permissions'],
      properties: {
        permissions: SCOPE_LIST,
        document_rules: {
          type: 'array',
          items: {
            type: 'object',
            required: ['environment', 'context', 'permissions'],
            properties: { environment: { type: 'string' }, context: { type: 'string' }, permissions: SCOPE_LIST },
          },
        },
      },
    },
  ],
};

export const CREATE_TOKEN_EXAMPLES = {
  reader: { summary: 'Reads every document of the client', value: { name: 'reader', scopes: ['document:read'] } },
  expiring: {
    summary: 'Writes documents until the end of 2099',
    value: { name: 'writer', scopes: ['document:read', 'document:create', 'document:update'], expires_at: '2099-12-31T23:59:59Z' },
  },
};

export const UPDATE_TOKEN_EXAMPLES = {
  deactivate: { summary: 'Stop the token from working (status active brings it back)', value: { status: 'inactive' } },
  rename: { summary: 'Rename it', value: { name: 'catalogue reader' } },
};

export class CreateTokenDto {
  @ApiProperty({ maxLength: TOKEN_NAME_MAX_LENGTH })
  @IsString()
  @IsNotEmpty()
  @MaxLength(TOKEN_NAME_MAX_LENGTH)
  name!: string;

  @ApiProperty(SCOPES_DOC)
  @IsTokenScopes()
  scopes!: TokenScopes;

  @ApiPropertyOptional({ type: String, format: 'date-time', nullable: true })
  @IsOptional()
  @IsISO8601({ strict: true })
  expires_at?: string | null;
}

export class UpdateTokenDto {
  @ApiPropertyOptional({ maxLength: TOKEN_NAME_MAX_LENGTH })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(TOKEN_NAME_MAX_LENGTH)
  name?: string;

  @ApiPropertyOptional(SCOPES_DOC)
  @IsOptional()
  @IsTokenScopes()
  scopes?: TokenScopes;

  @ApiPropertyOptional({ enum: ['active', 'inactive'] })
  @IsOptional()
  @IsIn(['active', 'inactive'])
  status?: 'active' | 'inactive';
}

const TIMESTAMP = { format: 'date-time', example: '2026-11-22T03:24:50.123456Z' } as const;

/** A token as the API shows it (never its secret). */
export class TokenDto {
  @ApiProperty({ format: 'uuid', description: 'The part of the token before `|`.' })
  id!: string;

  @ApiProperty({ format: 'uuid' })
  client_id!: string;

  @ApiProperty({ example: 'reader' })
  name!: string;

  @ApiProperty(SCOPES_DOC)
  scopes!: TokenScopes;

  @ApiProperty({ enum: ['active', 'inactive'] })
  status!: TokenStatus;

  @ApiProperty({ type: String, ...TIMESTAMP, nullable: true, description: 'Written in batches, so up to TOKEN_LAST_USED_FLUSH_SECONDS late.' })
  last_used_at!: string | null;

  @ApiProperty({ type: String, ...TIMESTAMP, nullable: true })
  expires_at!: string | null;

  @ApiProperty(TIMESTAMP)
  created_at!: string;

  @ApiProperty(TIMESTAMP)
  updated_at!: string;
}

/** The token as `POST …/tokens` shows it: not yet used. */
export class TokenDetailsDto extends OmitType(TokenDto, ['last_used_at'] as const) {}

/** The answer of `POST …/tokens`: the plain token, shown this once. */
export class TokenCreatedDto {
  @ApiProperty({ example: 'Token created. Store it now: it will not be shown again.' })
  message!: string;

  @ApiProperty({ description: '`<id>|<secret>`, for `Authorization: Bearer`.' })
  token!: string;

  @ApiProperty({ type: TokenDetailsDto })
  token_details!: TokenDetailsDto;
}
