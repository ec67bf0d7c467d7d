import { credentialIds } from './whoami';

describe('credentialIds', () => {
  it('keeps the id part of each credential and never its secret', () => {
    const ids = credentialIds({
      docstoreClient: 'c',
      docstoreToken: '7|s3cret',
      gatewayKey: 'gw_12ab_s3cret',
      ingestKey: 'sales_9_s3cret',
      pushToken: 'push_42_s3cret',
    });
    expect(ids).toEqual({ docstore: '7', gateway: 'gw_12ab', ingestion: 'sales_9', push: 'push_42' });
    expect(JSON.stringify(ids)).not.toContain('s3cret');
  });

  it('leaves out the docstore without its client, and names a credential of another shape generically', () => {
    expect(credentialIds({ docstoreToken: '7|x', gatewayKey: 'oddkey' })).toEqual({ gateway: 'gateway key' });
  });
});
