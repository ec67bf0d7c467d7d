import { pageRead } from './document-events';
import type { DocumentDto } from './document.dto';

const doc = (key: string, version: number): DocumentDto => ({ id: `id-${key}`, key, version, data: { big: 'x'.repeat(10_000) } }) as unknown as DocumentDto;

describe('pageRead', () => {
  it("names the page's documents by id, key and version, in order, and none of their data", () => {
    const scope = { clientId: 'c', environment: 'production', context: 'shop', type: 'product' };
    const event = pageRead(scope, { page: 2, perPage: 2, offset: 2 }, [doc('b', 3), doc('a', 1)], 5);
    expect(event).toEqual({
      environment: 'production',
      context: 'shop',
      type: 'product',
      page: 2,
      per_page: 2,
      total: 5,
      documents: [
        { id: 'id-b', key: 'b', version: 3 },
        { id: 'id-a', key: 'a', version: 1 },
      ],
    });
  });
});
