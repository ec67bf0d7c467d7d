// Settings are converted by their declared types, which needs decorator metadata.
import 'reflect-metadata';
import { IsString, Matches } from 'class-validator';

/** The gateway's webhook settings, beside the engine's own (WebhookServiceConfig). */
export class GatewayWebhooksConfig {
  /** Notification types a webhook may subscribe to, comma-separated. */
  @IsString()
  @Matches(/^[a-z_]+(,[a-z_]+)*$/)
  WEBHOOK_TYPES: string = 'messages,user_preferences';

  get webhookTypes(): string[] {
    return this.WEBHOOK_TYPES.split(',');
  }
}
