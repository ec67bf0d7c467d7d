import { credentialSource, namedHeader, opaqueKey, type AuthOptions } from '@app/auth';
import { ApiKeyStore } from './api-key.store';
import { API_KEY_PREFIX } from './api-key.issuer';

/** The gateway authenticates one way: the `apikey` header, checked by the API key store. */
export const GATEWAY_AUTH: AuthOptions = {
  sources: {
    apikey: credentialSource({
      header: namedHeader('apikey'),
      parse: opaqueKey(API_KEY_PREFIX),
      store: ApiKeyStore,
      docs: { name: 'apikey', scheme: { type: 'apiKey', in: 'header', name: 'apikey', description: 'gw_<id>_<secret>' } },
    }),
  },
  messages: {
    missing: 'Authentication is required: send the header apikey.',
    invalid: 'The API key is invalid or revoked.',
  },
};
