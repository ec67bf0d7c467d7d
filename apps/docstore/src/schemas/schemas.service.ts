import { Injectable } from '@nestjs/common';
import type { SqlRunner } from '@app/database';
import type { DocumentScope } from '../documents/document-scope';
import { JsonSchemaValidator, type SchemaViolation } from './json-schema.validator';
import { InvalidSchemaException, SchemaNotFoundException, SchemaValidationException } from './schemas.exception';
import { SchemasRepository, type SchemaView } from './schemas.repository';

@Injectable()
export class SchemasService {
  constructor(
    private readonly schemas: SchemasRepository,
    private readonly validator: JsonSchemaValidator,
  ) {}

  async put(scope: DocumentScope, schema: Record<string, unknown>): Promise<{ schema: SchemaView; created: boolean }> {
    const problems = this.validator.schemaProblems(schema);
    if (problems) throw new InvalidSchemaException(problems);
    return this.schemas.upsert(scope, schema);
  }

  async get(scope: DocumentScope): Promise<SchemaView> {
    const schema = await this.schemas.find(scope);
    if (!schema) throw new SchemaNotFoundException();
    return schema;
  }

  async delete(scope: DocumentScope): Promise<void> {
    if (!(await this.schemas.delete(scope))) throw new SchemaNotFoundException();
  }

  /**
   * Checks each payload against the scope's schema (none: everything passes). Violations
   * are reported under `prefix(i)`, e.g. `documents.3.data.price` for bulk.
   */
  async assertValid(scope: DocumentScope, payloads: unknown[], prefix?: (index: number) => string, db?: SqlRunner): Promise<void> {
    const schema = await this.schemas.find(scope, db);
    if (!schema) return;
    const cacheKey = `${schema.id}@${schema.updated_at}`;
    const violations: SchemaViolation[] = [];
    payloads.forEach((data, i) => {
      for (const v of this.validator.validate(cacheKey, schema.schema, data)) {
        violations.push(prefix ? { property: `${prefix(i)}.${v.property}`, message: v.message } : v);
      }
    });
    if (violations.length > 0) throw new SchemaValidationException(violations.slice(0, 100));
  }
}
