import { execFileSync } from 'node:child_process';
import { createDecipheriv, createECDH, createPublicKey, generateKeyPairSync, hkdfSync, randomBytes, verify, type KeyObject } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { createSecureServer, type Http2SecureServer, type ServerHttp2Stream, type IncomingHttpHeaders } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A scripted answer of a fake provider; unscripted sends succeed. */
export interface FakeAnswer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Drop the connection instead of answering (a network error). */
  hangUp?: boolean;
}

/** What a fake received for one device. */
export interface Received {
  device: string;
  at: number;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
}

abstract class FakeProvider {
  readonly received: Received[] = [];
  /** Every answer waits this long (a slow provider keeps work queued). */
  delayMs = 0;
  private readonly scripts = new Map<string, FakeAnswer[]>();

  /** The next sends to `device` get these answers, in order. */
  script(device: string, ...answers: FakeAnswer[]): void {
    this.scripts.set(device, [...(this.scripts.get(device) ?? []), ...answers]);
  }

  /** Sends that reached the fake for `device` (answered or not). */
  attempts(device: string): Received[] {
    return this.received.filter((r) => r.device === device);
  }

  protected next(device: string): FakeAnswer | undefined {
    return this.scripts.get(device)?.shift();
  }

  /** A JWT whose signature `key` verifies, else null; `dsa` as node:crypto wants it for the algorithm. */
  protected static verifyJwt(jwt: string, key: KeyObject, algorithm: 'RS256' | 'ES256'): Record<string, unknown> | null {
    const [header, claims, signature] = jwt.split('.');
    if (!header || !claims || !signature) return null;
    const ok = verify(
      'sha256',
      Buffer.from(`${header}.${claims}`),
      algorithm === 'ES256' ? { key, dsaEncoding: 'ieee-p1363' } : key,
      Buffer.from(signature, 'base64url'),
    );
    if (!ok) return null;
    const parsedHeader = JSON.parse(Buffer.from(header, 'base64url').toString()) as { alg?: string };
    return parsedHeader.alg === algorithm ? { ...(JSON.parse(Buffer.from(claims, 'base64url').toString()) as object), header: parsedHeader } : null;
  }
}

/**
 * FCM HTTP v1 and Google's token endpoint on one loopback HTTP server. The token endpoint
 * checks the RS256 assertion with the service account's public key; messages:send checks
 * the access token it issued. `serviceAccountFile` is a key file pointing at it.
 */
export class FakeFcm extends FakeProvider {
  readonly tokensIssued: string[] = [];
  baseUrl = '';
  tokenUrl = '';
  serviceAccountFile = '';
  /** Seconds the issued tokens live. */
  tokenLifetime = 3600;
  /** Answers the token endpoint gives before it issues tokens again. */
  tokenFailures = 0;
  private server?: Server;
  private dir = '';
  private readonly publicKey: KeyObject;
  private readonly privatePem: string;

  constructor(readonly projectId = 'fake-project') {
    super();
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    this.publicKey = publicKey;
    this.privatePem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      // When the request arrived (its headers), not when its body was read: closer to when it was sent.
      const arrived = Date.now();
      void readBody(req).then(async (raw) => {
        const answer = (status: number, body: unknown, headers: Record<string, string> = {}) =>
          res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
        if (req.url === '/token') {
          const assertion = new URLSearchParams(raw).get('assertion') ?? '';
          const claims = FakeProvider.verifyJwt(assertion, this.publicKey, 'RS256');
          if (!claims || claims.aud !== this.tokenUrl) return answer(400, { error: 'invalid_grant' });
          if (this.tokenFailures > 0 && this.tokenFailures--) return answer(503, { error: 'unavailable' });
          const token = `ya29.fake-${this.tokensIssued.length + 1}`;
          this.tokensIssued.push(token);
          return answer(200, { access_token: token, expires_in: this.tokenLifetime, token_type: 'Bearer' });
        }
        if (req.url !== `/v1/projects/${this.projectId}/messages:send`) return answer(404, { error: { status: 'NOT_FOUND' } });
        const body = JSON.parse(raw) as { message: { token: string } };
        const device = body.message.token;
        this.received.push({ device, at: arrived, headers: req.headers, body });
        if (this.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
        const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
        if (!bearer || !this.tokensIssued.includes(bearer)) return answer(401, { error: { status: 'UNAUTHENTICATED', message: 'bad token' } });
        const scripted = this.next(device);
        if (scripted?.hangUp) return req.socket.destroy();
        if (scripted) return answer(scripted.status, scripted.body ?? {}, scripted.headers);
        return answer(200, { name: `projects/${this.projectId}/messages/${this.received.length}` });
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const port = (this.server.address() as AddressInfo).port;
    this.baseUrl = `http://127.0.0.1:${port}`;
    this.tokenUrl = `${this.baseUrl}/token`;
    this.dir = mkdtempSync(join(tmpdir(), 'fake-fcm-'));
    this.serviceAccountFile = join(this.dir, 'service-account.json');
    writeFileSync(
      this.serviceAccountFile,
      JSON.stringify({
        type: 'service_account',
        project_id: this.projectId,
        client_email: 'push@fake-project.iam.gserviceaccount.com',
        private_key: this.privatePem,
        token_uri: this.tokenUrl,
      }),
    );
    return this;
  }

  /** The ingest-push settings that send Android pushes through this fake. */
  settings(): Record<string, string> {
    return { PUSH_PROVIDER_ANDROID: 'fcm', FCM_BASE_URL: this.baseUrl, FCM_SERVICE_ACCOUNT_FILE: this.serviceAccountFile };
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Unregistered, as FCM answers it. */
export const FCM_UNREGISTERED: FakeAnswer = {
  status: 404,
  body: {
    error: {
      code: 404,
      status: 'NOT_FOUND',
      message: 'Requested entity was not found.',
      details: [{ '@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError', errorCode: 'UNREGISTERED' }],
    },
  },
};

/**
 * APNs on a loopback HTTP/2 server with real TLS: a test CA and a server certificate for
 * 127.0.0.1/localhost made with openssl at start, a .p8 key (EC P-256) whose public half
 * checks every request's ES256 provider token.
 */
export class FakeApns extends FakeProvider {
  baseUrl = '';
  keyFile = '';
  caFile = '';
  readonly keyId = 'KEY1234567';
  readonly teamId = 'TEAM123456';
  readonly topic = 'com.example.app';
  /** Provider tokens seen, to check they are reused. */
  readonly providerTokens = new Set<string>();
  private server?: Http2SecureServer;
  private dir = '';
  private readonly publicKey: KeyObject;
  private readonly p8: string;

  constructor() {
    super();
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    this.p8 = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    this.publicKey = createPublicKey(privateKey);
  }

  async start(): Promise<this> {
    this.dir = mkdtempSync(join(tmpdir(), 'fake-apns-'));
    const { key, cert, ca } = makeServerCertificate(this.dir);
    this.keyFile = join(this.dir, 'AuthKey.p8');
    writeFileSync(this.keyFile, this.p8);
    this.caFile = ca;
    this.server = createSecureServer({ key: readFileSync(key), cert: readFileSync(cert) });
    this.server.on('stream', (stream, headers) => this.onStream(stream, headers));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.baseUrl = `https://localhost:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** The ingest-push settings that send iOS pushes through this fake. */
  settings(): Record<string, string> {
    return {
      PUSH_PROVIDER_IOS: 'apns',
      APNS_BASE_URL: this.baseUrl,
      APNS_KEY_FILE: this.keyFile,
      APNS_KEY_ID: this.keyId,
      APNS_TEAM_ID: this.teamId,
      APNS_TOPIC: this.topic,
      APNS_CA_FILE: this.caFile,
    };
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    rmSync(this.dir, { recursive: true, force: true });
  }

  private onStream(stream: ServerHttp2Stream, headers: IncomingHttpHeaders): void {
    const chunks: Buffer[] = [];
    stream.on('error', () => undefined);
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => {
      const device = decodeURIComponent(String(headers[':path']).replace(/^\/3\/device\//, ''));
      const answer = (status: number, body?: unknown, extra: Record<string, string> = {}) => {
        stream.respond({ ':status': status, 'apns-id': String(headers['apns-id'] ?? 'generated'), ...extra });
        stream.end(body === undefined ? undefined : JSON.stringify(body));
      };
      this.received.push({ device, at: Date.now(), headers: headers as Received['headers'], body: JSON.parse(Buffer.concat(chunks).toString() || '{}') });
      const jwt = /^bearer (.+)$/.exec(String(headers.authorization ?? ''))?.[1] ?? '';
      const claims = FakeProvider.verifyJwt(jwt, this.publicKey, 'ES256');
      if (!claims || claims.iss !== this.teamId || (claims.header as { kid?: string }).kid !== this.keyId)
        return answer(403, { reason: 'InvalidProviderToken' });
      this.providerTokens.add(jwt);
      if (headers['apns-topic'] !== this.topic) return answer(400, { reason: 'TopicDisallowed' });
      const scripted = this.next(device);
      if (scripted?.hangUp) return stream.close(2);
      if (scripted) return answer(scripted.status, scripted.body, scripted.headers);
      answer(200);
    });
  }
}

/** A CA and a server certificate for localhost/127.0.0.1 signed by it, made with openssl in `dir`. */
function makeServerCertificate(dir: string): { key: string; cert: string; ca: string } {
  const at = (name: string) => join(dir, name);
  const run = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  run(
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-keyout',
    at('ca.key'),
    '-out',
    at('ca.pem'),
    '-days',
    '2',
    '-subj',
    '/CN=push test CA',
  );
  run(
    'req',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-keyout',
    at('server.key'),
    '-out',
    at('server.csr'),
    '-subj',
    '/CN=localhost',
  );
  writeFileSync(at('ext.cnf'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
  run(
    'x509',
    '-req',
    '-in',
    at('server.csr'),
    '-CA',
    at('ca.pem'),
    '-CAkey',
    at('ca.key'),
    '-CAcreateserial',
    '-out',
    at('server.pem'),
    '-days',
    '2',
    '-extfile',
    at('ext.cnf'),
  );
  return { key: at('server.key'), cert: at('server.pem'), ca: at('ca.pem') };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString()));
  });
}

/** A browser push subscription, as PushSubscription.toJSON() gives it. */
export interface WebSubscription {
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

/**
 * A Web Push service (RFC 8030) on loopback HTTPS: `subscribe(name)` makes a subscription whose keys
 * the fake keeps, as a browser would. Each message must carry a VAPID Authorization (RFC 8292: an
 * ES256 JWT whose `aud` is this origin, verified with the `k` key) and an aes128gcm body (RFC 8188,
 * 8291), which the fake decrypts with the subscription's keys: `received[].body` is the plaintext JSON.
 * A message that fails a check is answered 400 and recorded with `problem`.
 */
export class FakeWebPush extends FakeProvider {
  baseUrl = '';
  caFile = '';
  /** Why messages were refused, in order. */
  readonly problems: string[] = [];
  private readonly subscribers = new Map<string, { ecdh: ReturnType<typeof createECDH>; auth: Buffer }>();
  private server?: HttpsServer;
  private dir = '';

  async start(): Promise<this> {
    this.dir = mkdtempSync(join(tmpdir(), 'fake-webpush-'));
    const { key, cert, ca } = makeServerCertificate(this.dir);
    this.caFile = ca;
    this.server = createHttpsServer({ key: readFileSync(key), cert: readFileSync(cert) }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const name = decodeURIComponent((req.url ?? '').replace(/^\/push\//, ''));
        let body: Record<string, unknown> = {};
        let problem: string | null = null;
        try {
          this.checkVapid(req.headers.authorization);
          if (req.headers['content-encoding'] !== 'aes128gcm') throw new Error(`content-encoding ${String(req.headers['content-encoding'])}`);
          if (!req.headers.ttl) throw new Error('no TTL header');
          body = JSON.parse(this.decrypt(name, Buffer.concat(chunks)).toString('utf8')) as Record<string, unknown>;
        } catch (error) {
          problem = (error as Error).message;
          this.problems.push(problem);
        }
        this.received.push({ device: name, at: Date.now(), headers: req.headers, body });
        const answer = problem ? { status: 400, body: { problem } } : (this.next(name) ?? { status: 201 });
        if (answer.hangUp) return req.socket.destroy();
        res.writeHead(answer.status, { 'content-type': 'application/json', ...(answer.headers ?? {}) });
        res.end(answer.body === undefined ? '' : JSON.stringify(answer.body));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.baseUrl = `https://localhost:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** The ingest-push settings that send web pushes through this fake, signed with the `vapid` key pair (base64url). */
  settings(vapid: { publicKey: string; privateKey: string }): Record<string, string> {
    return {
      PUSH_PROVIDER_WEB: 'webpush',
      VAPID_PUBLIC_KEY: vapid.publicKey,
      VAPID_PRIVATE_KEY: vapid.privateKey,
      VAPID_SUBJECT: 'mailto:push@example.com',
      WEB_PUSH_CA_FILE: this.caFile,
    };
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** A new subscription named `name` (the device of `received`), with its own P-256 key and auth secret. */
  subscribe(name: string): WebSubscription {
    const ecdh = createECDH('prime256v1');
    ecdh.generateKeys();
    const auth = randomBytes(16);
    this.subscribers.set(name, { ecdh, auth });
    return {
      endpoint: `${this.baseUrl}/push/${encodeURIComponent(name)}`,
      keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: auth.toString('base64url') },
    };
  }

  /** RFC 8292: `vapid t=<ES256 JWT>, k=<P-256 public key>`, the JWT's aud this origin, not expired. */
  private checkVapid(header: string | undefined): void {
    const m = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(header ?? '');
    if (!m) throw new Error(`no VAPID authorization (${String(header)})`);
    const raw = Buffer.from(m[2], 'base64url');
    const key = createPublicKey({
      key: { kty: 'EC', crv: 'P-256', x: raw.subarray(1, 33).toString('base64url'), y: raw.subarray(33).toString('base64url') },
      format: 'jwk',
    });
    const claims = FakeProvider.verifyJwt(m[1], key, 'ES256') as { aud?: string; exp?: number; sub?: string } | null;
    if (!claims) throw new Error('VAPID JWT signature does not verify');
    if (claims.aud !== new URL(this.baseUrl).origin) throw new Error(`VAPID aud ${claims.aud}`);
    if (!claims.exp || claims.exp * 1000 < Date.now()) throw new Error('VAPID JWT expired');
    if (!claims.sub) throw new Error('VAPID JWT has no sub');
  }

  /** RFC 8291 / 8188: one aes128gcm record, keys from ECDH with the sender's key in the header and the auth secret. */
  private decrypt(name: string, body: Buffer): Buffer {
    const subscriber = this.subscribers.get(name);
    if (!subscriber) throw new Error(`no subscription ${name}`);
    const salt = body.subarray(0, 16);
    const idLength = body[20];
    const senderKey = body.subarray(21, 21 + idLength);
    const ciphertext = body.subarray(21 + idLength);
    const shared = subscriber.ecdh.computeSecret(senderKey);
    const info = Buffer.concat([Buffer.from('WebPush: info\0'), subscriber.ecdh.getPublicKey(), senderKey]);
    const ikm = Buffer.from(hkdfSync('sha256', shared, subscriber.auth, info, 32));
    const cek = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16));
    const nonce = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12));
    const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
    decipher.setAuthTag(ciphertext.subarray(ciphertext.length - 16));
    const padded = Buffer.concat([decipher.update(ciphertext.subarray(0, ciphertext.length - 16)), decipher.final()]);
    // The last record ends with the delimiter 0x02, then zero padding.
    let end = padded.length - 1;
    while (end >= 0 && padded[end] === 0) end--;
    if (padded[end] !== 2) throw new Error('no last-record delimiter');
    return padded.subarray(0, end);
  }
}
