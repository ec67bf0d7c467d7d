import { PickType } from '@nestjs/swagger';
import { DocumentDto } from '../documents/document.dto';

/**
 * One version of a document, as history lists show it: the document's fields at that version
 * (`id` is the entry's, the integer a restore path takes; `created_at` is when the version was written).
 */
export class HistoryEntryDto extends PickType(DocumentDto, [
  'id',
  'client_id',
  'environment',
  'context',
  'type',
  'key',
  'data',
  'version',
  'created_at',
] as const) {}
