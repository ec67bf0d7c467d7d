import { ApiError } from './errors';

/** What the console's client sent: the browser's view of each request. */
const sent: Request[] = [];
let answer: () => Response;

// The client resolves its relative paths against the page's origin, which Node does not have: this test's Request
// gives it one. Both are read when the client module loads, so it is imported after.
class PageRequest extends Request {
  constructor(input: string | URL | Request, init?: RequestInit) {
    super(typeof input === 'string' ? new URL(input, 'http://console.test') : input, init);
  }
}
globalThis.Request = PageRequest;
globalThis.fetch = (input: string | URL | Request) => {
  sent.push(input as Request);
  return Promise.resolve(answer());
};

const credentials = { docstoreToken: 'id|secret', docstoreClient: 'c1', gatewayKey: 'gw_1_s', ingestKey: 'sales_1_s', pushToken: 'push_1_s' };
const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

describe('the typed client', () => {
  let client: typeof import('./client');
  beforeAll(async () => {
    client = await import('./client');
  });
  beforeEach(() => {
    sent.length = 0;
  });

  it('fills the path template, writes the query (filters as filter[field_op]) and sends the credential, never cookies', async () => {
    answer = () => json(200, { data: [], current_page: 1, next_page_url: null });
    await client.call('docstore', credentials, 'get', '/api/v1/client/{client}/{environment}/context/{context}/type/{type}', {
      params: { path: { client: 'c1', environment: 'prod', context: 'a b', type: 'x/y' }, query: { per_page: 25, filter: { price_gt: '5' }, sort: undefined } },
    });
    const [request] = sent;
    const url = new URL(request.url);
    expect(url.origin).toBe('http://console.test');
    expect(url.pathname).toBe('/api/v1/client/c1/prod/context/a%20b/type/x%2Fy');
    expect([...url.searchParams]).toEqual([
      ['per_page', '25'],
      ['filter[price_gt]', '5'],
    ]);
    expect(request.headers.get('authorization')).toBe('Bearer id|secret');
    expect(request.headers.get('accept')).toBe('application/json');
    expect(request.credentials).toBe('omit');
  });

  it('sends each service its own credential headers and a JSON body', async () => {
    answer = () => json(200, { messaging_product: 'whatsapp', contacts: [], messages: [{ id: 'wamid.1' }] });
    const sentMessage = await client.call('gateway', credentials, 'post', '/api/Messages', {
      body: { messaging_product: 'whatsapp', to: '15550001', type: 'text', text: { body: 'hi' } },
    });
    expect(sentMessage).toEqual({ messaging_product: 'whatsapp', contacts: [], messages: [{ id: 'wamid.1' }] });
    expect(sent[0].method).toBe('POST');
    expect(sent[0].headers.get('apikey')).toBe('gw_1_s');
    expect(sent[0].headers.get('version')).toBe('6.0');
    expect(sent[0].headers.get('content-type')).toBe('application/json');
    expect(await sent[0].json()).toEqual({ messaging_product: 'whatsapp', to: '15550001', type: 'text', text: { body: 'hi' } });

    answer = () => new Response(null, { status: 204 });
    await expect(client.call('push', credentials, 'delete', '/api/pushm/bulk/{batchId}', { params: { path: { batchId: 'b1' } } })).resolves.toBeUndefined();
    expect(sent[1].headers.get('authorization')).toBe('Bearer push_1_s');
  });

  it('throws ApiError with the message as the API words it and the body for field errors', async () => {
    answer = () => json(400, { error: { message: '(#100) Invalid parameter', type: 'OAuthException', code: 100 } });
    const refused = client.call('gateway', credentials, 'get', '/api/Messages/{id}', { params: { path: { id: 'nope' } } });
    await expect(refused).rejects.toThrow(ApiError);
    await expect(refused).rejects.toMatchObject({ status: 400, message: '(#100) Invalid parameter' });

    answer = () => json(422, { message: 'The given data was invalid.', errors: { per_page: ['too big'] } });
    const invalid = await client.call('ingestion', credentials, 'get', '/DataInserterSales/api/sales/ingestions', {}).catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(ApiError);
    expect((invalid as ApiError).fieldErrors).toEqual([{ field: 'per_page', message: 'too big' }]);
    expect(sent[1].headers.get('apikey')).toBe('sales_1_s');

    answer = () => new Response('', { status: 502, statusText: 'Bad Gateway' });
    await expect(client.call('push', credentials, 'get', '/api/pushm/bulk', {})).rejects.toMatchObject({ status: 502, message: '502 Bad Gateway' });
  });
});
