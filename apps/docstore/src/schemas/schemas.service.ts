import { Injectable } from '@nestjs/common';
import { audited, AuditLog, type AuditActor } from '@app/audit';
import { Sql } from '@app/database';
import type { DocumentScope } from '../address/document-scope';
import { JsonSchemaValidator, type SchemaViolation } from './json-schema.validator';
import { SchemaCache } from './schema-cache.service';
import { InvalidSchemaException, SchemaNotFoundException, SchemaValidationException } from './schemas.exception';
import type { SchemaDto } from './schema.dto';
import { SchemasRepository } from './schemas.repository';

@Injectable()
export class SchemasService {
  constructor(
    private readonly schemas: SchemasRepository,
    private readonly validator: JsonSchemaValidator,
    private readonly cache: SchemaCache,
    private readonly sql: Sql,
    private readonly audit: AuditLog,
  ) {}

  /** Sets the schema; the change and its audit record (`schema.set`, the schema before and after) commit together. */
  async put(scope: DocumentScope, schema: Record<string, unknown>, actor: AuditActor): Promise<{ schema: SchemaDto; created: boolean }> {
    const problems = this.validator.schemaProblems(schema);
    if (problems) throw new InvalidSchemaException(problems);
    return this.cache.change(scope, () =>
      audited(this.sql, this.audit, actor, async (tx, record) => {
        const before = await this.schemas.locked(tx, scope);
        const result = await this.schemas.upsert(tx, scope, schema);
        await record({ ...auditTarget(scope, 'schema.set'), before: before && { schema: before.schema }, after: { schema } });
        return result;
      }),
    );
  }

  async get(scope: DocumentScope): Promise<SchemaDto> {
    const schema = await this.schemas.find(scope);
    if (!schema) throw new SchemaNotFoundException();
    return schema;
  }

  async delete(scope: DocumentScope, actor: AuditActor): Promise<void> {
    const deleted = await this.cache.change(
      scope,
      () =>
        audited(this.sql, this.audit, actor, async (tx, record) => {
          const before = await this.schemas.locked(tx, scope);
          if (!before) return false;
          await this.schemas.delete(tx, scope);
          await record({ ...auditTarget(scope, 'schema.removed'), before: { schema: before.schema }, after: null });
          return true;
        }),
      (found) => found,
    );
    if (!deleted) throw new SchemaNotFoundException();
  }

  /**
   * Checks each payload against the scope's schema (none: everything passes), as cached by
   * SchemaCache. Violations
   * are reported under `prefix(i)`, e.g. `documents.3.data.price` for bulk.
   */
  async assertValid(scope: DocumentScope, payloads: unknown[], prefix?: (index: number) => string): Promise<void> {
    const check = await this.cache.get(scope);
    if (!check) return;
    const violations: SchemaViolation[] = [];
    payloads.forEach((data, i) => {
      for (const v of check(data)) {
        violations.push(prefix ? { property: `${prefix(i)}.${v.property}`, message: v.message } : v);
      }
    });
    if (violations.length > 0) throw new SchemaValidationException(violations.slice(0, 100));
  }
}

/** A schema's audit target: its collection, `environment/context/type`. */
function auditTarget(scope: DocumentScope, action: string) {
  return { tenantId: scope.clientId, action, targetType: 'schema', targetId: `${scope.environment}/${scope.context}/${scope.type}` };
}
