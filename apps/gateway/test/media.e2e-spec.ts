import 'reflect-metadata';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Sql } from '@app/database';
import { numericId } from '../src/common/numeric-id';
import { fileOf } from './support/media-files';
import { NETWORK, request, startGateway, useCloudGateway, type Gateway, type Phone } from './support/gateway-test';

const MEDIA_DIR = `/tmp/gateway-test-media-${process.pid}-m`;

describe('POST api/Medias (sandbox, local storage)', () => {
  let gw: Gateway;
  let phone: Phone;

  beforeAll(async () => {
    gw = await startGateway({ MEDIA_DIR, GATEWAY_SERVICE_WINDOW: 'off' });
  });
  afterAll(() => gw.close());
  beforeEach(async () => {
    phone = await gw.newPhone();
  });

  const upload = (file: Buffer | null, contentType: string, product: string | null = NETWORK) => {
    let req = request(gw.http).post('/api/Medias').set(phone.headers);
    if (file) req = req.attach('File', file, { filename: 'upload.bin', contentType });
    if (product !== null) req = req.field('messaging_product', product);
    return req;
  };
  const rows = async () =>
    gw
      .get(Sql)
      .rows<{ id: string; kind: string; mime_type: string; size: string }>(
        `SELECT m.id, m.kind, m.mime_type, m.size FROM gateway.media m JOIN gateway.phones p ON p.id = m.phone_ref WHERE p.phone_id = $1`,
        [phone.phoneId],
      );
  const files = async () => {
    const account = (await gw.get(Sql).one<{ account_id: string }>(`SELECT account_id FROM gateway.phones WHERE phone_id = $1`, [phone.phoneId]))!.account_id;
    const dir = join(MEDIA_DIR, account);
    return existsSync(dir) ? readdirSync(dir) : [];
  };

  it.each([
    ['png', 'image/png', 'image'],
    ['jpeg', 'image/jpeg', 'image'],
    ['webp', 'image/webp', 'sticker'],
    ['pdf', 'application/pdf', 'document'],
    ['ogg-opus', 'audio/ogg', 'audio'],
    ['mp4', 'video/mp4', 'video'],
    ['mp3', 'audio/mpeg', 'audio'],
    ['text', 'text/plain', 'document'],
  ] as const)('stores a %s as %s (%s) and returns its id (200)', async (kind, mime, mediaKind) => {
    const res = await upload(fileOf(kind), mime).expect(200);
    expect(res.body).toEqual({ id: expect.stringMatching(/^\d{16}$/) });
    expect(await rows()).toEqual([{ id: res.body.id, kind: mediaKind, mime_type: mime, size: '1024' }]);
    expect(await files()).toEqual([res.body.id]);
  });

  it('takes the type from the bytes when the part says application/octet-stream, and the id works in a message', async () => {
    const { body } = await upload(fileOf('png'), 'application/octet-stream').expect(200);
    await request(gw.http)
      .post('/api/Messages')
      .set(phone.headers)
      .send({ messaging_product: NETWORK, to: '15550102030', type: 'image', image: { id: body.id, caption: 'look' } })
      .expect(200);
    const other = await gw.newPhone();
    await request(gw.http)
      .post('/api/Messages')
      .set(other.headers)
      .send({ messaging_product: NETWORK, to: '15550102030', type: 'image', image: { id: body.id } })
      .expect(400);
  });

  it.each([
    ['an image over 5MB', () => upload(fileOf('png', 5 * 1024 * 1024 + 1), 'image/png'), 413],
    ['a sticker over 100KB', () => upload(fileOf('webp', 100 * 1024 + 1), 'image/webp'), 413],
    ['audio/ogg without opus', () => upload(fileOf('ogg-vorbis'), 'audio/ogg'), 400],
    ['a PNG declared as JPEG', () => upload(fileOf('png'), 'image/jpeg'), 400],
    ['bytes of no supported type', () => upload(Buffer.from('MZ\x90\x00 not a media file'), 'image/png'), 400],
    ['no File', () => upload(null, ''), 400],
    ['a wrong messaging_product', () => upload(fileOf('png'), 'image/png', 'telegram'), 400],
    ['no messaging_product', () => upload(fileOf('png'), 'image/png', null), 400],
    ['a form field the form does not have', () => upload(fileOf('png'), 'image/png').field('caption', 'hi'), 400],
    ['File sent as a text field', () => upload(null, '').field('File', 'not a file'), 400],
  ])('refuses %s, storing nothing', async (_, send, status) => {
    const res = await send().expect(status);
    expect(res.body.error).toEqual(expect.objectContaining({ code: expect.any(Number), error_data: expect.objectContaining({ details: expect.any(String) }) }));
    expect(await rows()).toEqual([]);
    expect(await files()).toEqual([]);
  });

  it("takes the Cloud API form's type field, and reads the type from the bytes", async () => {
    const res = await upload(fileOf('png'), 'image/png').field('type', 'image/jpeg').expect(200);
    expect(await rows()).toEqual([expect.objectContaining({ id: res.body.id, mime_type: 'image/png' })]);
  });

  it('says why a text file declared image/png is refused, though plain text is supported', async () => {
    const res = await upload(fileOf('text'), 'image/png').expect(400);
    expect(res.body.error.error_data.details).toBe(
      "File: its bytes are plain text, which is accepted only with the part's Content-Type text/plain (this one says image/png)",
    );
    expect(await rows()).toEqual([]);
  });

  it('names the field File when the file comes in a field named file', async () => {
    const res = await request(gw.http)
      .post('/api/Medias')
      .set(phone.headers)
      .field('messaging_product', NETWORK)
      .attach('file', fileOf('png'), { filename: 'a.png', contentType: 'image/png' })
      .expect(400);
    expect(res.body.error.error_data.details).toBe(
      'File: send the file in the multipart form field File (names are case-sensitive); this request sent a file in "file"',
    );
    expect(await rows()).toEqual([]);
    expect(await files()).toEqual([]);
  });

  it('refuses a JSON body and a request without apikey', async () => {
    await request(gw.http).post('/api/Medias').set(phone.headers).send({ messaging_product: NETWORK }).expect(400);
    await request(gw.http).post('/api/Medias').set({ version: '6.0' }).attach('File', fileOf('png'), 'a.png').expect(401);
  });
});

describe('POST api/Medias when the network answers with a media id the gateway already holds (cloud)', () => {
  // Not about the service window: free-form messages go to contacts who never wrote.
  const cloud = useCloudGateway({ GATEWAY_SERVICE_WINDOW: 'off' });

  const upload = (p: Phone, file: Buffer, contentType: string) =>
    request(cloud.gw.http).post('/api/Medias').set(p.headers).field('messaging_product', NETWORK).attach('File', file, { filename: 'upload.bin', contentType });
  const record = (id: string) =>
    cloud.gw.get(Sql).one<{ account_id: string; kind: string; mime_type: string }>(`SELECT account_id, kind, mime_type FROM gateway.media WHERE id = $1`, [id]);
  const accountOf = async (p: Phone) =>
    (await cloud.gw.get(Sql).one<{ account_id: string }>(`SELECT account_id FROM gateway.phones WHERE phone_id = $1`, [p.phoneId]))!.account_id;
  const repeating = (id: string) => cloud.graph.answer((call) => (call.path.endsWith('/media') ? { status: 200, body: { id } } : undefined));
  const image = (p: Phone, id: string) =>
    request(cloud.gw.http).post('/api/Messages').set(p.headers).send({ messaging_product: NETWORK, to: '15550102030', type: 'image', image: { id } });

  it('answers a repeated id of the same account with that id (200), the record describing the latest upload', async () => {
    const phone = await cloud.gw.newPhone({ accessToken: 'EAAG-test-token' });
    const id = `7${numericId()}`;
    repeating(id);
    expect((await upload(phone, fileOf('png'), 'image/png').expect(200)).body).toEqual({ id });
    expect((await upload(phone, fileOf('pdf'), 'application/pdf').expect(200)).body).toEqual({ id });
    expect(await record(id)).toEqual({ account_id: await accountOf(phone), kind: 'document', mime_type: 'application/pdf' });
    expect(cloud.graph.calls.filter((c) => c.path.endsWith('/media'))).toHaveLength(2);
    cloud.graph.answer(() => undefined);
    await image(phone, id).expect(200);
  });

  it("refuses an id recorded for another account with 409 in the network's error body, leaving the record to its owner", async () => {
    const owner = await cloud.gw.newPhone({ accessToken: 'EAAG-test-token' });
    const other = await cloud.gw.newPhone({ accessToken: 'EAAG-test-token' });
    const id = `7${numericId()}`;
    repeating(id);
    await upload(owner, fileOf('png'), 'image/png').expect(200);
    const res = await upload(other, fileOf('jpeg'), 'image/jpeg').expect(409);
    expect(res.body).toEqual({
      error: {
        message: '(#131053) Media upload error',
        type: 'OAuthException',
        code: 131053,
        error_data: {
          messaging_product: NETWORK,
          details: `File: the network answered with media id ${id}, which belongs to another account; nothing was recorded, upload the file again.`,
        },
        fbtrace_id: expect.any(String),
      },
    });
    expect(await record(id)).toEqual({ account_id: await accountOf(owner), kind: 'image', mime_type: 'image/png' });
    cloud.graph.answer(() => undefined);
    await image(owner, id).expect(200);
    await image(other, id).expect(400);
  });
});
