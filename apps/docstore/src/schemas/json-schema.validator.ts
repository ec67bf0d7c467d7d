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
  private readonly draft07 = withFormats(new Ajv({ allErrors: true, strict: false }));
  private readonly draft2020 = withFormats(new Ajv2020({ allErrors: true, strict: false }));
  private readonly compiled = new Map<string, ValidateFunction>();

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
    }
  }

  /** Violations of `data` against the schema identified by `cacheKey`. */
  validate(cacheKey: string, schema: Record<string, unknown>, data: unknown): SchemaViolation[] {
    let validate = this.compiled.get(cacheKey);
    if (!validate) {
      validate = this.engineFor(schema)!.compile(schema);
      if (this.compiled.size >= CACHE_LIMIT) this.compiled.delete(this.compiled.keys().next().value!);
      this.compiled.set(cacheKey, validate);
    }
    return validate(data) ? [] : toViolations(validate.errors ?? []);
  }

  private engineFor(schema: Record<string, unknown>): Ajv | null {
    const declared = schema.$schema;
    if (declared === undefined || (typeof declared === 'string' && DRAFT_2020.test(declared))) return this.draft2020;
    if (typeof declared === 'string' && DRAFT_07.test(declared)) return this.draft07;
    return null;
  }
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
