import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { DOCUMENT_EVENTS } from '../documents/document-events';

const EVENTS_MESSAGE = `Each event must be one of: ${DOCUMENT_EVENTS.join(', ')}.`;

export const CREATE_WEBHOOK_EXAMPLES = {
  changes: { summary: 'Every change of a document', value: { url: 'https://hooks.example.com/docstore', events: ['document.created', 'document.updated', 'document.deleted'] } },
};

export const UPDATE_WEBHOOK_EXAMPLES = {
  deletions: { summary: 'Only deletions from now on', value: { events: ['document.deleted'] } },
  pause: { summary: 'Pause deliveries', value: { status: 'inactive' } },
};

export class CreateWebhookDto {
  @ApiProperty({ maxLength: 2048, description: 'https URL of a public host (http only for WEBHOOK_ALLOWED_TARGETS).' })
  @IsString() @MaxLength(2048)
  url!: string;

  @ApiProperty({ type: [String], enum: DOCUMENT_EVENTS })
  @IsArray() @ArrayMinSize(1) @ArrayMaxSize(DOCUMENT_EVENTS.length * 4) @IsIn(DOCUMENT_EVENTS, { each: true, message: EVENTS_MESSAGE })
  events!: string[];

  @ApiPropertyOptional({ enum: ['active', 'inactive'], default: 'active' })
  @IsOptional() @IsIn(['active', 'inactive'])
  status?: 'active' | 'inactive';
}

/** Every field optional: what is given changes, the rest stays. */
export class UpdateWebhookDto {
  @ApiPropertyOptional({ maxLength: 2048 })
  @IsOptional() @IsString() @MaxLength(2048)
  url?: string;

  @ApiPropertyOptional({ type: [String], enum: DOCUMENT_EVENTS })
  @IsOptional() @IsArray() @ArrayMinSize(1) @ArrayMaxSize(DOCUMENT_EVENTS.length * 4) @IsIn(DOCUMENT_EVENTS, { each: true, message: EVENTS_MESSAGE })
  events?: string[];

  @ApiPropertyOptional({ enum: ['active', 'inactive'] })
  @IsOptional() @IsIn(['active', 'inactive'])
  status?: 'active' | 'inactive';
}
