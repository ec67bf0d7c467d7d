import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsISO8601, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import { IsTokenScopes } from './token-scopes.validator';
import type { TokenScopes } from './token-scopes';

const SCOPES_DOC = {
  description: 'Flat array of scopes, or {permissions, document_rules:[{environment, context, permissions}]}; * grants all.',
  oneOf: [{ type: 'array', items: { type: 'string' } }, { type: 'object' }],
};

export const CREATE_TOKEN_EXAMPLES = {
  reader: { summary: 'Reads every document of the client', value: { name: 'reader', scopes: ['document:read'] } },
  expiring: { summary: 'Writes documents until the end of 2099', value: { name: 'writer', scopes: ['document:read', 'document:create', 'document:update'], expires_at: '2099-12-31T23:59:59Z' } },
};

export const UPDATE_TOKEN_EXAMPLES = {
  deactivate: { summary: 'Stop the token from working (status active brings it back)', value: { status: 'inactive' } },
  rename: { summary: 'Rename it', value: { name: 'catalogue reader' } },
};

export class CreateTokenDto {
  @ApiProperty({ maxLength: 255 })
  @IsString() @IsNotEmpty() @MaxLength(255)
  name!: string;

  @ApiProperty(SCOPES_DOC)
  @IsTokenScopes()
  scopes!: TokenScopes;

  @ApiPropertyOptional({ type: String, format: 'date-time', nullable: true })
  @IsOptional() @IsISO8601({ strict: true })
  expires_at?: string | null;
}

export class UpdateTokenDto {
  @ApiPropertyOptional({ maxLength: 255 })
  @IsOptional() @IsString() @IsNotEmpty() @MaxLength(255)
  name?: string;

  @ApiPropertyOptional(SCOPES_DOC)
  @IsOptional() @IsTokenScopes()
  scopes?: TokenScopes;

  @ApiPropertyOptional({ enum: ['active', 'inactive'] })
  @IsOptional() @IsIn(['active', 'inactive'])
  status?: 'active' | 'inactive';
}

/** A token as the API shows it. */
export interface TokenView {
  id: string;
  client_id: string;
  name: string;
  scopes: TokenScopes;
  status: string;
  last_used_at: string | null;
  expires_at: string | null;
  created_at: string;
  updated_at: string;
}
