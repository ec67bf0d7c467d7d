import type { SettingDefaults } from '@app/config';

/** The ingest-push service's defaults for shared settings; its own feature settings arrive with its features. */
export const INGEST_PUSH_DEFAULTS: SettingDefaults = { PORT: 3003, REDIS_PREFIX: 'ingest-push:' };
