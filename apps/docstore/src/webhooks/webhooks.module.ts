import { Module } from '@nestjs/common';
import { WebhooksController } from './webhooks.controller';

/** The document store's webhook endpoints; the engine behind them is the shared WebhooksModule. */
@Module({ controllers: [WebhooksController] })
export class DocstoreWebhooksModule {}
