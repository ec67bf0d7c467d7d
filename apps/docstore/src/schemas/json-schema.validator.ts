import { Injectable } from '@nestjs/common';
import Ajv, { type ValidateFunction, type ErrorObject } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

export interface SchemaViolation {
  property: string;
  message: string;
}

const DRAFT_07 = /^https?:\/\/json-schema\.org\/draft-07\/schema#?$/;
const DRAFT_2020 = /^https?:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/;
const CACHE_LIMIT = 1000;

/**
 * JSON Schema validation with Ajv. A schema declaring draft-07 in `$schema` is read as
 * draft-07; one declaring 2020-12, or nothing, as draft 2020-12. Compiled validators
 * are cached by schema id and update time.
 */
@Injectable()
export class JsonSchemaValidator {
  // addUsedSchema: false keeps user schemas out of Ajv's registry, so a schema's $id never
  // collides with the same $id compiled before (a replaced schema, another scope's schema).
  private readonly draft07 = withFormats(new Ajv({ allErrors: true, strict: false, addUsedSchema: false }));
  private readonly draft2020 = withFormats(new Ajv2020({ allErrors: true, strict: false, addUsedSchema: false }));
  private readonly compiled = new Map<string, { validate: ValidateFunction; schema: Record<string, unknown>; ajv: Ajv }>();

  /** Why the schema itself is unusable, or null. */
  schemaProblems(schema: Record<string, unknown>): SchemaViolation[] | null {
    const ajv = this.engineFor(schema);
    if (!ajv) return [{ property: '$schema', message: 'Only draft-07 and draft 2020-12 schemas are supported.' }];
    try {
      if (!ajv.validateSchema(schema)) return toViolations(ajv.errors ?? [], 'schema');
      ajv.compile(schema);
      return null;
    } catch (error) {
      return [{ property: 'schema', message: (error as Error).message }];
    } finally {
      release(ajv, schema);
    }
  }

  /** Violations of `data` against the schema identified by `cacheKey`. */
  validate(cacheKey: string, schema: Record<string, unknown>, data: unknown): SchemaViolation[] {
    let entry = this.compiled.get(cacheKey);
    if (!entry) {
      const ajv = this.engineFor(schema)!;
      entry = { validate: ajv.compile(schema), schema, ajv };
      if (this.compiled.size >= CACHE_LIMIT) {
        const [oldestKey, oldest] = this.compiled.entries().next().value!;
        this.compiled.delete(oldestKey);
        release(oldest.ajv, oldest.schema);
      }
      this.compiled.set(cacheKey, entry);
    }
    const { validate } = entry;
    return validate(data) ? [] : toViolations(validate.errors ?? []);
  }

  private engineFor(schema: Record<string, unknown>): Ajv | null {
    const declared = schema.$schema;
    if (declared === undefined || (typeof declared === 'string' && DRAFT_2020.test(declared))) return this.draft2020;
    if (typeof declared === 'string' && DRAFT_07.test(declared)) return this.draft07;
    return null;
  }
}

/**
 * Ajv keeps every schema object it compiled: forget this one. removeSchema also drops
 * whatever is registered under the schema's $id, so skip it when that id names something
 * Ajv holds (a meta-schema): user schemas are never registered (addUsedSchema: false).
 */
function release(ajv: Ajv, schema: Record<string, unknown>): void {
  const id = typeof schema.$id === 'string' ? schema.$id.replace(/#\/?$/, '') : '';
  if (id && (id in ajv.refs || id in ajv.schemas)) return;
  ajv.removeSchema(schema);
}

function withFormats<T extends Ajv>(ajv: T): T {
  addFormats(ajv);
  return ajv;
}

/** `/address/city` → `address.city`; a missing required property is named itself. */
function toViolations(errors: ErrorObject[], root = ''): SchemaViolation[] {
  return errors.map((error) => {
    const segments = error.instancePath.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
    if (error.keyword === 'required') segments.push(String(error.params.missingProperty));
    if (error.keyword === 'additionalProperties') segments.push(String(error.params.additionalProperty));
    const property = [root, ...segments].filter(Boolean).join('.') || '(root)';
    return { property, message: error.message ?? 'is invalid' };
  });
}
