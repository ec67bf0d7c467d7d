import { appendFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import Ajv2019, { type ValidateFunction } from 'ajv/dist/2019';
import addFormats from 'ajv-formats';

/** What every app serves outside its API, and so outside its OpenAPI document (libs/server): not checked. */
const OUTSIDE_THE_API = /^\/(?:health(?:\/live)?|metrics|docs(?:-json|\/.*)?)$/;

/** Bodies larger than this are not kept for checking (an export stream, a large page): counted as skipped. */
const MAX_CAPTURED_BYTES = 4 * 1024 * 1024;

interface Answer {
  method: string;
  path: string;
  status: number;
  type: string;
  body: Buffer;
}

type Schema = Record<string, unknown>;
interface OpenApiDocument {
  paths?: Record<string, Record<string, { responses?: Record<string, { content?: Record<string, { schema?: Schema }> }> }>>;
  components?: { schemas?: Record<string, Schema> };
}

/**
 * Checks every 2xx JSON answer an app gives during a test against the schema its own OpenAPI document declares for
 * that operation and status: a missing required field, a wrong type or a field the schema does not declare (objects
 * are closed unless they say `additionalProperties`) is a problem, and so is a JSON answer with no schema at all.
 * The test kit installs it in every app it boots (`createTestApp`) and reports the problems when the app closes.
 */
export class ResponseCheck {
  private readonly answers: Answer[] = [];

  /** Express middleware that keeps a copy of each answer's bytes. */
  readonly middleware = (req: IncomingMessage & { originalUrl?: string }, res: ServerResponse, next: () => void): void => {
    const chunks: Buffer[] = [];
    let size = 0;
    const keep = (chunk: unknown, encoding?: unknown): void => {
      if (chunk == null || typeof chunk === 'function' || size > MAX_CAPTURED_BYTES) return;
      const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
      size += buffer.length;
      chunks.push(buffer);
    };
    const write = res.write.bind(res) as (...args: unknown[]) => boolean;
    const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
    res.write = ((chunk: unknown, ...rest: unknown[]) => (keep(chunk, rest[0]), write(chunk, ...rest))) as ServerResponse['write'];
    res.end = ((chunk?: unknown, ...rest: unknown[]) => (keep(chunk, rest[0]), end(chunk, ...rest))) as ServerResponse['end'];
    res.on('finish', () => {
      if (res.statusCode < 200 || res.statusCode > 299 || size > MAX_CAPTURED_BYTES) return;
      const url = req.originalUrl ?? req.url ?? '/';
      if (OUTSIDE_THE_API.test(url.split('?')[0])) return;
      this.answers.push({
        method: (req.method ?? 'GET').toLowerCase(),
        path: url.split('?')[0],
        status: res.statusCode,
        type: String(res.getHeader('content-type') ?? ''),
        body: Buffer.concat(chunks),
      });
    });
    next();
  };

  /** Checks what was recorded against the app's OpenAPI document (loaded only when there is something to check), forgets it, and returns the problems. */
  async check(load: () => Promise<object>): Promise<string[]> {
    const answers = this.answers.splice(0);
    const json = answers.filter((a) => /^application\/(?:[\w.+-]+\+)?json\b/i.test(a.type) && a.method !== 'head' && a.body.length > 0);
    if (json.length === 0) return [];
    const operations = new OperationIndex((await load()) as OpenApiDocument);
    const problems = new Set<string>();
    for (const answer of json) {
      const found = operations.find(answer.method, answer.path);
      const name = `${answer.method.toUpperCase()} ${found?.template ?? answer.path} ${answer.status}`;
      if (!found) {
        problems.add(`${name}: no operation in the OpenAPI document matches`);
        continue;
      }
      const validate = found.validator(answer.status);
      if (!validate) {
        problems.add(`${name}: answered JSON, but the operation documents no schema for it`);
        continue;
      }
      let body: unknown;
      try {
        body = JSON.parse(answer.body.toString('utf8'));
      } catch {
        problems.add(`${name}: the body is not JSON`);
        continue;
      }
      if (!validate(body)) {
        const detail = (validate.errors ?? [])
          .slice(0, 3)
          .map(
            (e) =>
              `${e.instancePath || '/'} ${e.message}${e.params && 'unevaluatedProperty' in e.params ? ` (${String(e.params.unevaluatedProperty)})` : ''}${e.params && 'additionalProperty' in e.params ? ` (${String(e.params.additionalProperty)})` : ''}`,
          );
        problems.add(`${name}: ${detail.join('; ')}`);
      }
    }
    recordCount(json.length);
    return [...problems];
  }
}

/** The operations of a document, found by method and concrete path, each with its answers' validators. */
class OperationIndex {
  private readonly ajv = new Ajv2019({ strict: false, allErrors: true, validateFormats: true });
  private readonly routes: Array<{ method: string; template: string; pattern: RegExp; literal: number }> = [];
  private readonly validators = new Map<string, ValidateFunction | null>();

  constructor(private readonly document: OpenApiDocument) {
    addFormats(this.ajv);
    for (const format of ['binary', 'byte', 'int32', 'int64', 'float', 'double', 'password']) this.ajv.addFormat(format, true);
    this.ajv.addSchema({ $id: 'openapi', components: { schemas: mapValues(document.components?.schemas ?? {}, (s) => toJsonSchema(s, document)) } });
    for (const [template, item] of Object.entries(document.paths ?? {})) {
      const source = template
        .split(/(\{[^}]+\})/)
        .map((part) => (part.startsWith('{') ? '([^/]+)' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
        .join('');
      for (const method of Object.keys(item)) {
        this.routes.push({ method, template, pattern: new RegExp(`^${source}/?$`), literal: template.replace(/\{[^}]+\}/g, '').length });
      }
    }
    // The most literal template first: /docs/{key}/history before /docs/{key}/{rest}.
    this.routes.sort((a, b) => b.literal - a.literal);
  }

  find(method: string, path: string): { template: string; validator: (status: number) => ValidateFunction | null } | undefined {
    const route = this.routes.find((r) => r.method === method && r.pattern.test(path));
    if (!route) return undefined;
    return { template: route.template, validator: (status) => this.validator(method, route.template, status) };
  }

  private validator(method: string, template: string, status: number): ValidateFunction | null {
    const key = `${method} ${template} ${status}`;
    if (!this.validators.has(key)) {
      const responses = this.document.paths?.[template]?.[method]?.responses ?? {};
      const answer = responses[String(status)] ?? responses[`${String(status)[0]}XX`] ?? responses.default;
      const content = Object.entries(answer?.content ?? {}).find(([type]) => /json/i.test(type));
      const schema = content?.[1].schema;
      this.validators.set(key, schema ? this.ajv.compile(toJsonSchema(schema, this.document) as object) : null);
    }
    return this.validators.get(key) ?? null;
  }
}

/**
 * OpenAPI 3.0 schema -> JSON Schema 2019-09: `nullable` becomes a union with null, refs point into the document
 * added as `openapi`, and an object with properties but no `additionalProperties` is closed. An `allOf` of several
 * parts is closed as a whole (each part is opened, or the parts would reject each other's fields).
 */
function toJsonSchema(schema: unknown, document: OpenApiDocument, open = false): unknown {
  if (Array.isArray(schema)) return schema.map((s) => toJsonSchema(s, document));
  if (!schema || typeof schema !== 'object') return schema;
  const source = schema as Schema;
  if (typeof source.$ref === 'string') {
    if (!open) return { $ref: `openapi${source.$ref}` };
    const name = source.$ref.replace('#/components/schemas/', '');
    return toJsonSchema(document.components?.schemas?.[name] ?? {}, document, true);
  }
  const out: Schema = {};
  for (const [key, value] of Object.entries(source)) {
    if (key === 'nullable' || key === 'example' || key === 'examples' || key === 'discriminator' || key === 'xml') continue;
    if (key === 'properties' || key === 'patternProperties') out[key] = mapValues(value as Record<string, unknown>, (s) => toJsonSchema(s, document));
    else if (key === 'allOf' && Array.isArray(value) && value.length > 1) out.allOf = value.map((s) => toJsonSchema(s, document, true));
    else if (key === 'items' || key === 'additionalProperties' || key === 'not' || key === 'anyOf' || key === 'oneOf' || key === 'allOf')
      out[key] = toJsonSchema(value, document);
    else out[key] = value;
  }
  const objectLike = source.type === 'object' || source.properties !== undefined || (Array.isArray(source.allOf) && source.allOf.length > 1);
  if (objectLike && !open && source.additionalProperties === undefined) out.unevaluatedProperties = false;
  return source.nullable === true ? { anyOf: [out, { type: 'null' }] } : out;
}

function mapValues<T, U>(record: Record<string, T>, fn: (value: T) => U): Record<string, U> {
  return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, fn(v)]));
}

/** One line per checked batch in the run's tally; Jest's global teardown prints the sum (.ci/run shows it). */
function recordCount(count: number): void {
  const run = process.env.TEST_RUN_ID;
  if (!run) return;
  const dir = responseCheckDir(run);
  mkdirSync(dir, { recursive: true });
  appendFileSync(join(dir, 'count'), `${count}\n`);
}

export function responseCheckDir(run: string): string {
  return join(tmpdir(), `response-check-${run}`);
}
