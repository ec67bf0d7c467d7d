import { Module } from '@nestjs/common';
import { WebhooksController } from './webhooks.controller';
import { DocstoreWebhooksService } from './webhooks.service';

/** The document store's webhook endpoints; the engine behind them is the shared WebhooksModule. */
@Module({ controllers: [WebhooksController], providers: [DocstoreWebhooksService] })
export class DocstoreWebhooksModule {}
