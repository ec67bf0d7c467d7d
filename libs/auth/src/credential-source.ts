import type { IncomingHttpHeaders } from 'node:http';
import type { Type } from '@nestjs/common';
import type { DocumentBuilder } from '@nestjs/swagger';
import type { MaybePromise } from './maybe-async';
import type { Principal } from './principal';

/** A credential split into the part looked up (indexed) and the part compared as a hash. */
export interface Credential {
  id: string;
  secret: string;
}

/** Turns a credential into a principal, or null when it is unknown, expired or revoked. Never throws for bad input. */
export interface CredentialStore<P extends Principal = Principal> {
  /** The principal, or null when the credential is unknown, inactive or wrong; a store may answer at once (from its cache). */
  verify(credential: Credential): MaybePromise<P | null>;
}

/** Where a credential travels: reads its raw text (or parts) from the headers, or null when absent. */
export interface HeaderForm<R = string> {
  read(headers: IncomingHttpHeaders): R | null;
}

/**
 * One way in: a header form, a parser for what it carries, and the store that checks
 * it. `store` is a provider token (usually the store's class) resolved when the app starts.
 */
export interface CredentialSource<R = string> {
  header: HeaderForm<R>;
  parse: (raw: R) => Credential | null;
  store: Type<CredentialStore> | symbol | string;
  /** OpenAPI security scheme advertised for this source, under `name`. */
  docs?: { name: string; scheme: Parameters<DocumentBuilder['addSecurity']>[1] };
  /** The 401's sentences on routes whose first source this is (naming the header it wants); the app's `messages` otherwise. */
  messages?: { missing?: string; invalid?: string };
}

/** Lets TypeScript check that a source's header form and parser agree. */
export function credentialSource<R>(source: CredentialSource<R>): CredentialSource<unknown> {
  return source as CredentialSource<unknown>;
}

const MAX_PART = 256;

/** `Authorization: Bearer <value>` */
export function bearerHeader(): HeaderForm {
  return {
    read: (headers) => {
      const value = single(headers.authorization);
      const match = value && /^Bearer\s+(.+)$/i.exec(value.trim());
      return match ? match[1] : null;
    },
  };
}

/** A header holding the whole credential, e.g. `apikey: <value>` (names are case-insensitive). */
export function namedHeader(name: string): HeaderForm {
  const key = name.toLowerCase();
  return { read: (headers) => single(headers[key])?.trim() || null };
}

/** Two headers carrying id and secret apart, e.g. `X-Client-Key` plus `X-Client-Token`. */
export function headerPair(idHeader: string, secretHeader: string): HeaderForm<Credential> {
  const [idKey, secretKey] = [idHeader.toLowerCase(), secretHeader.toLowerCase()];
  return {
    read: (headers) => {
      const id = single(headers[idKey])?.trim();
      const secret = single(headers[secretKey])?.trim();
      return id && secret ? { id, secret } : null;
    },
  };
}

/** Parser for `<id>|<secret>` (split at the first bar). */
export function idBarSecret(raw: string): Credential | null {
  const bar = raw.indexOf('|');
  if (bar <= 0 || bar === raw.length - 1) return null;
  return bounded({ id: raw.slice(0, bar), secret: raw.slice(bar + 1) });
}

/** Parser for credentials already split by their header form. */
export function asIs(credential: Credential): Credential | null {
  return bounded(credential);
}

/**
 * Parser for opaque keys `<prefix>_<id>_<secret>` (see `mintCredential`): the id is looked
 * up by index, the secret compared as a SHA-256 hash in constant time. Other text is no credential.
 */
export function opaqueKey(prefix: string): (raw: string) => Credential | null {
  const pattern = new RegExp(`^${prefix}_([A-Za-z0-9-]{1,64})_([A-Za-z0-9]{1,${MAX_PART}})$`);
  return (raw) => {
    const match = pattern.exec(raw);
    return match ? { id: match[1], secret: match[2] } : null;
  };
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function bounded(credential: Credential): Credential | null {
  return credential.id.length <= MAX_PART && credential.secret.length <= MAX_PART ? credential : null;
}
