// Settings are converted by their declared types, which needs decorator metadata.
import 'reflect-metadata';
import { IsInt, IsOptional, IsString, Max, Min } from 'class-validator';

/** Settings of the endpoint where the network's notifications enter. */
export class NotificationsConfig {
  /** App secret that signs the network's notifications (X-Hub-Signature-256). Without it, inbound notifications are refused. */
  @IsOptional()
  @IsString()
  CLOUD_API_APP_SECRET?: string;

  /** Token the network echoes when verifying the notification endpoint. Without it, verification is refused. */
  @IsOptional()
  @IsString()
  CLOUD_API_VERIFY_TOKEN?: string;

  /** How long the keys of inbound notifications are kept to drop a second delivery of one, in days (the network retries for up to 7). */
  @IsInt()
  @Min(1)
  @Max(365)
  INBOUND_EVENT_RETENTION_DAYS: number = 14;
}
