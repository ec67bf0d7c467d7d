import type { SettingDefaults } from '@app/config';

/** The gateway service's defaults for shared settings; its own feature settings arrive with its features. */
export const GATEWAY_DEFAULTS: SettingDefaults = { PORT: 3002, REDIS_PREFIX: 'gateway:' };
