import { FakeApns, FakeFcm, FakeWebPush } from '@app/testkit';
import webpush from 'web-push';
import { startPush, type PushApp } from './push-test';

export interface PushSetup {
  /** Start a loopback FCM fake and send Android pushes through it. */
  fcm?: boolean;
  /** Start a loopback APNs fake and send iOS pushes through it. */
  apns?: boolean;
  /** Start a loopback Web Push service and send web pushes through it (with a VAPID key pair of its own). */
  web?: boolean;
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
  web: FakeWebPush;
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
  let web: FakeWebPush | undefined;
  let env: Record<string, string> = {};
  const ready = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`usePush: ${what} is not available (not asked for, or read before beforeAll)`);
    return value;
  };

  beforeAll(async () => {
    if (setup.fcm) fcm = await new FakeFcm().start();
    if (setup.apns) apns = await new FakeApns().start();
    if (setup.web) web = await new FakeWebPush().start();
    const vapid = web ? webpush.generateVAPIDKeys() : null;
    env = {
      ...fcm?.settings(),
      ...apns?.settings(),
      ...(web && vapid ? web.settings(vapid) : {}),
      ...(typeof setup.env === 'function' ? setup.env() : setup.env),
    };
    app = await startPush(env);
    token = await app.token();
  });
  afterAll(async () => {
    await app?.close();
    await fcm?.stop();
    await apns?.stop();
    await web?.stop();
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
    get web() {
      return ready(web, 'the Web Push fake');
    },
    get env() {
      return env;
    },
  };
}
