import type { IncomingHttpHeaders } from 'node:http';

/** The header forms the three specs use to carry a `<id>|<secret>` credential. */
export enum CredentialForm {
  /** `Authorization: Bearer <id>|<secret>` */
  Bearer = 'bearer',
  /** `X-Client-Key: <id>` plus `X-Client-Token: <secret>` */
  ClientKeyHeaders = 'client-key-headers',
  /** `apikey: <id>|<secret>` */
  ApiKeyHeader = 'api-key-header',
}

export interface Credential {
  id: string;
  secret: string;
}

const MAX_PART = 256;

/** The first credential found in the accepted forms, or null. Never throws on odd input. */
export function extractCredential(headers: IncomingHttpHeaders, forms: readonly CredentialForm[]): Credential | null {
  for (const form of forms) {
    const credential = read(headers, form);
    if (credential) return credential;
  }
  return null;
}

function read(headers: IncomingHttpHeaders, form: CredentialForm): Credential | null {
  switch (form) {
    case CredentialForm.Bearer: {
      const value = single(headers.authorization);
      const match = value && /^Bearer\s+(.+)$/i.exec(value.trim());
      return match ? split(match[1]) : null;
    }
    case CredentialForm.ClientKeyHeaders: {
      const id = single(headers['x-client-key'])?.trim();
      const secret = single(headers['x-client-token'])?.trim();
      return id && secret ? bounded({ id, secret }) : null;
    }
    case CredentialForm.ApiKeyHeader: {
      const value = single(headers.apikey);
      return value ? split(value.trim()) : null;
    }
  }
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function split(value: string): Credential | null {
  const bar = value.indexOf('|');
  if (bar <= 0 || bar === value.length - 1) return null;
  return bounded({ id: value.slice(0, bar), secret: value.slice(bar + 1) });
}

function bounded(credential: Credential): Credential | null {
  return credential.id.length <= MAX_PART && credential.secret.length <= MAX_PART ? credential : null;
}
