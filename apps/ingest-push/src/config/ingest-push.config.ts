import type { SettingDefaults } from '@app/config';

/**
 * The ingest-push service's defaults for shared settings. JSON bodies may reach 16 MiB:
 * a bulk push request carries up to PUSH_MAX_ITEMS (10,000) items.
 */
export const INGEST_PUSH_DEFAULTS: SettingDefaults = { PORT: 3003, REDIS_PREFIX: 'ingest-push:', BODY_LIMIT_BYTES: 16 * 1024 * 1024 };
