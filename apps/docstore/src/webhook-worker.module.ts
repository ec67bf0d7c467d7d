import { Module } from '@nestjs/common';
import { docstoreFoundation } from './docstore.foundation';

/**
 * What runs with WEBHOOK_WORKERS=only: the delivery workers and the outbox relay, with
 * /health and no API, so Kubernetes can scale delivery apart from the API.
 */
@Module({ imports: docstoreFoundation('docstore-webhooks') })
export class DocstoreWebhookWorkerModule {}
