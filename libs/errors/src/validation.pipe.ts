import { ValidationPipe, type ArgumentMetadata, type ValidationError } from '@nestjs/common';
import type { MetadataStorage } from 'class-transformer/types/MetadataStorage';
import { getMetadataStorage } from 'class-validator';
import { InvalidPathParameterException, ValidationFailedException, type FieldErrors } from './common.exception';
import { isStorableText } from './storable-text';

/** Flattens class-validator's tree into `{ "documents.0.key": ["..."] }`. */
export function toFieldErrors(errors: ValidationError[], prefix = ''): FieldErrors {
  const out: FieldErrors = {};
  for (const error of errors) {
    const path = prefix ? `${prefix}.${error.property}` : error.property;
    if (error.constraints) out[path] = Object.values(error.constraints);
    Object.assign(out, toFieldErrors(error.children ?? [], path));
  }
  return out;
}

// class-transformer keeps the @Type metadata of nested DTOs here; it publishes no typed entry point for it.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { defaultMetadataStorage } = require('class-transformer/cjs/storage') as { defaultMetadataStorage: MetadataStorage };

const RAW_JSON_FIELDS = Symbol('rawJsonFields');

/**
 * Marks a free-form JSON field (document data, a JSON Schema) to be kept exactly as
 * sent. class-transformer and Nest's pipe would otherwise rebuild it, dropping or
 * choking on keys named like Object.prototype members (`constructor`, `toString`).
 */
export const KeepRaw = (): PropertyDecorator => (target, key) => {
  const owner = target.constructor;
  const fields: (string | symbol)[] = Reflect.getMetadata(RAW_JSON_FIELDS, owner) ?? [];
  Reflect.defineMetadata(RAW_JSON_FIELDS, [...fields, key], owner);
};

type Path = (string | number)[];

interface Walk {
  /** @KeepRaw values taken out of the body, with their paths. */
  detached: [Path, unknown][];
  /** Unknown fields named like Object.prototype members (or `prototype`), which the pipe would drop silently. */
  inherited: FieldErrors;
}

/**
 * Takes every @KeepRaw object out of the body (nested DTOs too), leaving an empty
 * stand-in of the same kind for validation, and notes fields named like prototype members.
 */
function walk(cls: unknown, value: unknown, path: Path = [], found: Walk = { detached: [], inherited: {} }): Walk {
  if (typeof cls !== 'function' || value === null || typeof value !== 'object' || Array.isArray(value)) return found;
  const body = value as Record<string | symbol, unknown>;
  noteInherited(body, path, found);
  const raw: (string | symbol)[] = Reflect.getMetadata(RAW_JSON_FIELDS, cls) ?? [];
  for (const field of raw) {
    const inner = body[field];
    if (inner !== null && typeof inner === 'object') {
      found.detached.push([[...path, field as string], inner]);
      body[field] = Array.isArray(inner) ? [] : {};
    }
  }
  for (const [field, inner] of Object.entries(body)) {
    const nested = defaultMetadataStorage.findTypeMetadata(cls, field)?.typeFunction();
    if (!nested) {
      // A free-form value checked by a custom validator (token scopes): class-transformer rebuilds it too.
      scanFreeForm(inner, [...path, field], found);
      continue;
    }
    if (Array.isArray(inner)) inner.forEach((item, i) => walk(nested, item, [...path, field, i], found));
    else walk(nested, inner, [...path, field], found);
  }
  return found;
}

/** Notes the keys of `body` named like prototype members, which class-transformer would drop silently. */
function noteInherited(body: object, path: Path, found: Walk): void {
  for (const key of Object.keys(body)) {
    // `prototype` too: Nest's pipe deletes it before validating, so it would pass unnoticed.
    if (key in Object.prototype || key === 'prototype') found.inherited[[...path, key].join('.')] = [`property ${key} should not exist`];
  }
}

/** Notes prototype-named keys at any depth of a value that has no DTO of its own. */
function scanFreeForm(value: unknown, path: Path, found: Walk): void {
  if (value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) return value.forEach((item, i) => scanFreeForm(item, [...path, i], found));
  noteInherited(value, path, found);
  for (const [key, inner] of Object.entries(value)) scanFreeForm(inner, [...path, key], found);
}

function attach(target: unknown, path: Path, raw: unknown): void {
  let node = target as Record<string | number, unknown>;
  for (const step of path.slice(0, -1)) node = node[step] as Record<string | number, unknown>;
  node[path[path.length - 1]] = raw;
}

const QUICK_CHECKS = new WeakMap<object, (value: unknown) => boolean>();

/**
 * Gives a body DTO a cheap test run before class-transformer and class-validator: a value
 * it accepts goes on as sent (a plain object, not an instance of the DTO), anything else
 * takes the full validation, which words the refusal. The test must accept only what the
 * DTO's decorators accept (it may refuse more); a property test beside each DTO holds it
 * to that. For the hot write paths, where the full pass is a tenth of a request's CPU.
 */
export const QuickCheck =
  (accepts: (value: unknown) => boolean): ClassDecorator =>
  (target) => {
    QUICK_CHECKS.set(target, accepts);
  };

/**
 * Refuses a path parameter PostgreSQL could not store, whether the handler takes one
 * (`@Param('id')`) or all of them (`@Param(SomePipe)`): it runs before any handler, param
 * pipe or id format check, so no route can forget it. Express has already refused
 * malformed percent-encoding (and so invalid UTF-8) with 400; a NUL (`%00`) decodes fine.
 */
function checkPathParameters(value: unknown, name?: string): void {
  if (typeof value === 'string') {
    if (!isStorableText(value)) throw new InvalidPathParameterException(name ?? 'path');
    return;
  }
  if (value === null || typeof value !== 'object') return;
  for (const [key, item] of Object.entries(value)) {
    // Express 5 gives a wildcard (`*rest`) its segments as an array.
    for (const text of Array.isArray(item) ? item : [item]) {
      if (typeof text === 'string' && !isStorableText(text)) throw new InvalidPathParameterException(key);
    }
  }
}

const DECLARED = new WeakMap<object, ReadonlySet<string>>();

/** The properties a DTO declares (those class-validator's whitelist keeps). */
function declaredProperties(metatype: object): ReadonlySet<string> {
  let names = DECLARED.get(metatype);
  if (!names) {
    names = new Set(
      getMetadataStorage()
        .getTargetValidationMetadatas(metatype as new () => object, '', true, false)
        .map((m) => m.propertyName),
    );
    DECLARED.set(metatype, names);
  }
  return names;
}

/**
 * Refuses `per_page[]=5`, `window[0]=7d`, `sort[a]=x`: Express's simple query parser keeps the brackets in
 * the name, so the array or object form of a declared parameter would otherwise be dropped as an unknown
 * name and the default silently used. Named as sent. Costs nothing while no name holds a bracket.
 */
function refuseBracketForms(value: unknown, metatype: unknown): void {
  if (value === null || typeof value !== 'object' || typeof metatype !== 'function') return;
  let errors: FieldErrors | undefined;
  for (const name of Object.keys(value)) {
    const bracket = name.indexOf('[');
    if (bracket <= 0) continue;
    const declared = name.slice(0, bracket);
    if (declaredProperties(metatype).has(declared)) (errors ??= {})[name] = [`The ${declared} parameter takes a single value: ${name} is not accepted.`];
  }
  if (errors) throw new ValidationFailedException(errors);
}

/**
 * Nest's validation pipe, with path parameters checked for storable text, and @KeepRaw
 * fields passed through untouched: they are validated as empty stand-ins of the same kind
 * (object or array) and put back after.
 */
class AppValidationPipe extends ValidationPipe {
  /** Query DTOs go through a pipe that drops the parameters they do not declare instead of refusing them. */
  private queries?: ValidationPipe;

  withQueries(queries: ValidationPipe): this {
    this.queries = queries;
    return this;
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'query' && this.queries) {
      refuseBracketForms(value, metadata.metatype);
      return this.queries.transform(value, metadata);
    }
    if (metadata.type === 'param') checkPathParameters(value, metadata.data);
    if (metadata.metatype && QUICK_CHECKS.get(metadata.metatype)?.(value)) return value;
    if (!metadata.metatype || !this.toValidate(metadata)) return super.transform(value, metadata);
    const { detached, inherited } = walk(metadata.metatype, value);
    if (Object.keys(inherited).length > 0 && this.validatorOptions.forbidNonWhitelisted) throw new ValidationFailedException(inherited);
    const result = await super.transform(value, metadata);
    for (const [path, raw] of detached) {
      attach(result, path, raw);
      if (result !== value) attach(value, path, raw);
    }
    return result;
  }
}

/**
 * The validation pipe every app registers, failures rendered as 422: unknown body fields are refused; query
 * parameters a query DTO does not declare are dropped (caches, proxies and tracking links add their own), while a
 * declared one in the wrong form (an array, a bad value) is refused like a body field.
 */
export function createValidationPipe(): ValidationPipe {
  const options = {
    whitelist: true,
    transform: true,
    validateCustomDecorators: false,
    stopAtFirstError: false,
    exceptionFactory: (errors: ValidationError[]) => new ValidationFailedException(toFieldErrors(errors)),
  };
  return new AppValidationPipe({ ...options, forbidNonWhitelisted: true }).withQueries(new AppValidationPipe({ ...options, forbidNonWhitelisted: false }));
}
