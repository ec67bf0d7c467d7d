import { FakeApns, FakeFcm } from '@app/testkit';
import { startPush, type PushApp } from './push-test';

export interface PushSetup {
  /** Start a loopback FCM fake and send Android pushes through it. */
  fcm?: boolean;
  /** Start a loopback APNs fake and send iOS pushes through it. */
  apns?: boolean;
  /** Further settings; a function is called at start (after the fakes and earlier beforeAll hooks ran). */
  env?: Record<string, string> | (() => Record<string, string>);
}

export interface PushUnderTest {
  app: PushApp;
  /** A token of an account of its own, minted at start. */
  token: string;
  /** The fakes asked for in the setup (reading one not asked for throws). */
  fcm: FakeFcm;
  apns: FakeApns;
  /** Every setting the app started with beyond startPush's own (e.g. for a worker process of the same deployment). */
  env: Record<string, string>;
}

/**
 * The push tests' common setup, as hooks of the calling describe: the fakes asked for, the
 * app pointed at them, a token; all closed afterwards (app first). The fields are read in tests.
 */
export function usePush(setup: PushSetup = {}): PushUnderTest {
  let app: PushApp | undefined;
  let token: string | undefined;
  let fcm: FakeFcm | undefined;
  let apns: FakeApns | undefined;
  let env: Record<string, string> = {};
  const ready = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`usePush: ${what} is not available (not asked for, or read before beforeAll)`);
    return value;
  };

  beforeAll(async () => {
    if (setup.fcm) fcm = await new FakeFcm().start();
    if (setup.apns) apns = await new FakeApns().start();
    env = {
      ...(fcm ? { PUSH_PROVIDER_ANDROID: 'fcm', FCM_BASE_URL: fcm.baseUrl, FCM_SERVICE_ACCOUNT_FILE: fcm.serviceAccountFile } : {}),
      ...(apns
        ? {
            PUSH_PROVIDER_IOS: 'apns',
            APNS_BASE_URL: apns.baseUrl,
            APNS_KEY_FILE: apns.keyFile,
            APNS_KEY_ID: apns.keyId,
            APNS_TEAM_ID: apns.teamId,
            APNS_TOPIC: apns.topic,
            APNS_CA_FILE: apns.caFile,
          }
        : {}),
      ...(typeof setup.env === 'function' ? setup.env() : setup.env),
    };
    app = await startPush(env);
    token = await app.token();
  });
  afterAll(async () => {
    await app?.close();
    await fcm?.stop();
    await apns?.stop();
  });

  return {
    get app() {
      return ready(app, 'the app');
    },
    get token() {
      return ready(token, 'the token');
    },
    get fcm() {
      return ready(fcm, 'the FCM fake');
    },
    get apns() {
      return ready(apns, 'the APNs fake');
    },
    get env() {
      return env;
    },
  };
}
