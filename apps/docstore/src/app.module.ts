import { Module } from '@nestjs/common';
import { authProviders } from '@app/auth';
import { DatabaseModule } from '@app/database';
import { CoreModule } from '@app/server';
import { WebhooksModule } from '@app/webhooks';
import { DOCSTORE_DEFAULTS, DOCSTORE_SETTINGS } from './config/docstore.config';
import { DOCSTORE_SCHEMA, docstoreEntities } from './database/docstore.entities';
import { docstoreMigrations } from './database/docstore.migrations';
import { DOCSTORE_WEBHOOK_ENGINE } from './webhooks/webhook-engine.provider';
import { DocumentsModule } from './documents/documents.module';
import { HistoryModule } from './history/history.module';
import { SchemasModule } from './schemas/schemas.module';
import { DOCSTORE_AUTH } from './tokens/docstore-auth.policy';
import { TokensModule } from './tokens/tokens.module';
import { DocstoreWebhooksModule } from './webhooks/webhooks.module';

export const DOCSTORE_VERSION = '0.1.0';

// Route order is import order, and Express tries routes in turn: SchemasModule comes before
// DocumentsModule so DOC/schema is matched before DOC/{key}, and the document routes (the
// hot path) come before the token and webhook routes, which no document URL can match.
@Module({
  imports: [
    CoreModule.forRoot({ service: 'docstore', version: DOCSTORE_VERSION, settings: DOCSTORE_SETTINGS, defaults: DOCSTORE_DEFAULTS }),
    DatabaseModule.forRoot({ schema: DOCSTORE_SCHEMA, entities: docstoreEntities, migrations: docstoreMigrations }),
    WebhooksModule.forRoot(DOCSTORE_WEBHOOK_ENGINE),
    SchemasModule,
    DocumentsModule,
    HistoryModule,
    TokensModule,
    DocstoreWebhooksModule,
  ],
  providers: [...authProviders(DOCSTORE_AUTH)],
})
export class AppModule {}
