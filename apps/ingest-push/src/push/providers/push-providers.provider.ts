import type { Provider } from '@nestjs/common';
import { PushConfig } from '../push.config';
import { ApnsProvider } from './apns.provider';
import { FcmProvider } from './fcm.provider';
import { PUSH_PROVIDERS, type PushProviders } from './push-provider';
import { SandboxProvider } from './sandbox.provider';
import { WebPushProvider } from './web-push.provider';

/** Builds each platform's provider from PUSH_PROVIDER_ANDROID / PUSH_PROVIDER_IOS (sandbox by default). */
export function createPushProviders(config: PushConfig): PushProviders {
  const android =
    config.PUSH_PROVIDER_ANDROID === 'fcm'
      ? new FcmProvider({
          baseUrl: config.FCM_BASE_URL,
          tokenUrl: config.FCM_TOKEN_URL,
          serviceAccountFile: config.FCM_SERVICE_ACCOUNT_FILE!,
          timeoutMs: config.timeoutMs,
          connections: config.PUSH_PROVIDER_CONNECTIONS,
        })
      : new SandboxProvider('android');
  const ios =
    config.PUSH_PROVIDER_IOS === 'apns'
      ? new ApnsProvider({
          baseUrl: config.APNS_BASE_URL,
          keyFile: config.APNS_KEY_FILE!,
          keyId: config.APNS_KEY_ID!,
          teamId: config.APNS_TEAM_ID!,
          topic: config.APNS_TOPIC!,
          caFile: config.APNS_CA_FILE,
          timeoutMs: config.timeoutMs,
          expirationSeconds: config.APNS_EXPIRATION_SECONDS,
        })
      : new SandboxProvider('ios');
  const web =
    config.PUSH_PROVIDER_WEB === 'webpush'
      ? new WebPushProvider({
          vapidPublicKey: config.VAPID_PUBLIC_KEY!,
          vapidPrivateKey: config.VAPID_PRIVATE_KEY!,
          vapidSubject: config.VAPID_SUBJECT!,
          timeoutMs: config.timeoutMs,
          ttlSeconds: config.WEB_PUSH_TTL_SECONDS,
          connections: config.PUSH_PROVIDER_CONNECTIONS,
          caFile: config.WEB_PUSH_CA_FILE,
        })
      : new SandboxProvider('web');
  return { android, ios, web };
}

export const pushProvidersProvider: Provider = { provide: PUSH_PROVIDERS, inject: [PushConfig], useFactory: createPushProviders };
