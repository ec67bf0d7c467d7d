import { Module } from '@nestjs/common';
import { authProviders } from '@app/auth';
import { DocstoreAuditModule } from './audit/audit.module';
import { ChangesModule } from './changes/changes.module';
import { docstoreFoundation } from './docstore.foundation';
import { DocumentsModule } from './documents/documents.module';
import { HistoryModule } from './history/history.module';
import { SchemasModule } from './schemas/schemas.module';
import { DOCSTORE_AUTH } from './tokens/docstore-auth.policy';
import { TokensModule } from './tokens/tokens.module';
import { DocstoreWebhooksModule } from './webhooks/webhooks.module';

// Route order is import order, and Express tries routes in turn: SchemasModule comes before
// DocumentsModule so DOC/schema is matched before DOC/{key}, and the document routes (the
// hot path) come before the token and webhook routes, which no document URL can match.
@Module({
  imports: [
    ...docstoreFoundation('docstore'),
    SchemasModule,
    DocumentsModule,
    HistoryModule,
    TokensModule,
    DocstoreWebhooksModule,
    ChangesModule,
    DocstoreAuditModule,
  ],
  providers: [...authProviders(DOCSTORE_AUTH)],
})
export class AppModule {}
