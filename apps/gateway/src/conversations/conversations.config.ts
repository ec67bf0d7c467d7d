// Settings are converted by their declared types, which needs decorator metadata.
import 'reflect-metadata';
import { IsIn, IsInt, Max, Min } from 'class-validator';

export const SERVICE_WINDOW_MODES = ['enforce', 'off'] as const;

/** Settings of conversations: the network's customer-service window. */
export class ConversationsConfig {
  /** `enforce` (default): a free-form message to a contact whose window is closed is refused with 131047 before the provider is called; `off`: not checked. */
  @IsIn(SERVICE_WINDOW_MODES)
  GATEWAY_SERVICE_WINDOW: (typeof SERVICE_WINDOW_MODES)[number] = 'enforce';

  /** How long a contact's last inbound message keeps the window open, in seconds (the network's 24 hours; shorter for tests). */
  @IsInt()
  @Min(1)
  @Max(7 * 24 * 3600)
  GATEWAY_SERVICE_WINDOW_SECONDS: number = 24 * 3600;
}
