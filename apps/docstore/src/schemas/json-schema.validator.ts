import { Injectable } from '@nestjs/common';
import Ajv, { type ValidateFunction, type ErrorObject } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { linearRegExp } from './linear-regexp';

export interface SchemaViolation {
  property: string;
  message: string;
}

const DRAFT_07 = /^https?:\/\/json-schema\.org\/draft-07\/schema#?$/;
const DRAFT_2020 = /^https?:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/;

/** Checks document data against one compiled schema. */
export type SchemaCheck = (data: unknown) => SchemaViolation[];

/**
 * JSON Schema validation with Ajv. A schema declaring draft-07 in `$schema` is read as
 * draft-07; one declaring 2020-12, or nothing, as draft 2020-12. Each schema compiles in
 * an Ajv instance of its own, so `$id`s of different or replaced schemas never collide
 * and a dropped validator frees everything it held. Patterns run in a linear-time engine.
 */
@Injectable()
export class JsonSchemaValidator {
  /** Only checks schemas against the meta-schemas; never compiles or registers user schemas. */
  private readonly metaDraft07 = new Ajv({ strict: false, addUsedSchema: false });
  private readonly metaDraft2020 = new Ajv2020({ strict: false, addUsedSchema: false });

  /** Why the schema itself is unusable, or null. */
  schemaProblems(schema: Record<string, unknown>): SchemaViolation[] | null {
    const draft = draftOf(schema);
    if (!draft) return [{ property: '$schema', message: 'Only draft-07 and draft 2020-12 schemas are supported.' }];
    const meta = draft === '07' ? this.metaDraft07 : this.metaDraft2020;
    if (!meta.validateSchema(schema)) return toViolations(meta.errors ?? [], 'schema');
    try {
      compile(draft, schema);
      return null;
    } catch (error) {
      return [{ property: 'schema', message: (error as Error).message }];
    }
  }

  /**
   * Compiles a stored schema (tens of milliseconds: callers cache the result). One that no
   * longer compiles, e.g. stored before patterns were restricted to RE2, refuses all data.
   */
  compile(schema: Record<string, unknown>): SchemaCheck {
    let validate: ValidateFunction;
    try {
      validate = compile(draftOf(schema) ?? '2020', schema);
    } catch (error) {
      const refusal = [{ property: '(root)', message: `The schema could not be applied: ${(error as Error).message}` }];
      return () => refusal;
    }
    return (data) => {
      try {
        return validate(data) ? [] : toViolations(validate.errors ?? []);
      } catch {
        // A schema that refers to itself without end ({"$ref": "#"}) overflows the stack.
        return [{ property: '(root)', message: 'The schema could not be applied: it refers to itself without end.' }];
      }
    };
  }
}

function draftOf(schema: Record<string, unknown>): '07' | '2020' | null {
  const declared = schema.$schema;
  if (declared === undefined || (typeof declared === 'string' && DRAFT_2020.test(declared))) return '2020';
  if (typeof declared === 'string' && DRAFT_07.test(declared)) return '07';
  return null;
}

function compile(draft: '07' | '2020', schema: Record<string, unknown>): ValidateFunction {
  // Unknown formats are annotations (as the spec allows): ignored, not logged.
  const options = { allErrors: true, strict: false, logger: false as const, code: { regExp: linearRegExp } };
  return withFormats(draft === '07' ? new Ajv(options) : new Ajv2020(options)).compile(schema);
}

function withFormats<T extends Ajv>(ajv: T): T {
  addFormats(ajv);
  return ajv;
}

/** `/address/city` → `address.city`; a missing required property is named itself. */
function toViolations(errors: ErrorObject[], root = ''): SchemaViolation[] {
  return errors.map((error) => {
    const segments = error.instancePath
      .split('/')
      .slice(1)
      .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
    if (error.keyword === 'required') segments.push(String(error.params.missingProperty));
    if (error.keyword === 'additionalProperties') segments.push(String(error.params.additionalProperty));
    const property = [root, ...segments].filter(Boolean).join('.') || '(root)';
    return { property, message: error.message ?? 'is invalid' };
  });
}
