import { IngestPushAuditModule } from './audit/audit.module';
import { Module } from '@nestjs/common';
import { authProviders } from '@app/auth';
import { ingestPushFoundation } from './ingest-push.foundation';
import { PushModule } from './push/push.module';
import { PUSH_CREDENTIALS, pushCredentialSource } from './push/push-token-verifier.service';
import { SALES_API_KEY_SOURCE } from './sales/sales-api-key.store';
import { SalesModule } from './sales/sales.module';

/** Sales ingestion (`apiKey` header) and bulk push (bearer tokens), one credential source each. */
@Module({
  imports: [...ingestPushFoundation('ingest-push'), SalesModule, PushModule, IngestPushAuditModule],
  providers: [
    ...authProviders({
      sources: {
        salesApiKey: SALES_API_KEY_SOURCE,
        [PUSH_CREDENTIALS]: pushCredentialSource,
      },
    }),
  ],
})
export class AppModule {}
