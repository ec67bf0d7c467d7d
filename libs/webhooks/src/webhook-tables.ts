import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** The engine's tables, in the schema of the app that uses it (the data source's schema, whatever its name). */
@Injectable()
export class WebhookTables {
  /** The quoted schema of the app's tables. */
  readonly schema: string;
  /** The quoted, schema-qualified tables. */
  readonly webhooks: string;
  readonly deliveries: string;
  readonly attempts: string;

  constructor(dataSource: DataSource) {
    this.schema = `"${String(dataSource.driver.schema).replace(/"/g, '""')}"`;
    this.webhooks = `${this.schema}.webhooks`;
    this.deliveries = `${this.schema}.webhook_deliveries`;
    this.attempts = `${this.schema}.webhook_attempts`;
  }
}
