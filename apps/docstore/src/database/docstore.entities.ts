import { webhookEntities } from '@app/webhooks';
import { DocumentEntity } from '../documents/document.entity';
import { HistoryEntryEntity } from '../history/history-entry.entity';
import { SchemaEntity } from '../schemas/schema.entity';
import { TokenEntity } from '../tokens/token.entity';

export const docstoreEntities = [DocumentEntity, HistoryEntryEntity, SchemaEntity, TokenEntity, ...webhookEntities];
