import { Injectable } from '@nestjs/common';
import { DAY_SECONDS, isoTimestamp, Pruner, Sql, storableTimestamp, type SqlRunner } from '@app/database';
import { DataSource } from 'typeorm';
import { auditRecorder, auditTable, type AuditActor, type AuditEntry, type AuditRecorder } from './audit-recorder';
import type { AuditRecordDto } from './audit-record.dto';
import { AuditConfig } from './audit.config';

export interface AuditFilter {
  action?: string;
  from?: string;
  to?: string;
}

interface Row {
  id: string;
  action: string;
  target_type: string;
  target_id: string;
  actor_id: string;
  actor_name: string | null;
  ip: string | null;
  at: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

/**
 * The app's audit log (`audit_log` in its schema). `record` runs on the caller's transaction, so the record commits
 * or rolls back with the change. Only the changed fields are kept, secrets masked (audit-mask.ts). Rows older than
 * AUDIT_RETENTION_DAYS go with the app's pruner.
 */
@Injectable()
export class AuditLog implements AuditRecorder {
  private readonly table: string;
  private readonly recorder: AuditRecorder;

  constructor(
    private readonly sql: Sql,
    dataSource: DataSource,
    config: AuditConfig,
    pruner: Pruner,
  ) {
    const schema = String(dataSource.driver.schema);
    this.table = auditTable(schema);
    this.recorder = auditRecorder(schema);
    pruner.register({ table: this.table, expired: 'at < cutoff', keepSeconds: () => config.AUDIT_RETENTION_DAYS * DAY_SECONDS });
  }

  /** Writes one record on `tx`, the change's own transaction. */
  record(tx: SqlRunner, actor: AuditActor, entry: AuditEntry): Promise<void> {
    return this.recorder.record(tx, actor, entry);
  }

  /** The tenant's records, newest first. `from`/`to` out of range are a 422 naming the field. */
  async list(tenantId: string, filter: AuditFilter, limit: number, offset: number): Promise<{ rows: AuditRecordDto[]; total: number }> {
    const params: unknown[] = [tenantId];
    const where = ['tenant_id = $1'];
    if (filter.action !== undefined) where.push(`action = $${params.push(filter.action)}`);
    if (filter.from !== undefined) where.push(`at >= $${params.push(storableTimestamp(filter.from, 'from'))}`);
    if (filter.to !== undefined) where.push(`at < $${params.push(storableTimestamp(filter.to, 'to'))}`);
    const { rows, total } = await this.sql.page<Row>(
      {
        columns: `id, action, target_type, target_id, actor_id, actor_name, host(ip) AS ip, ${isoTimestamp('at')}, before, after`,
        source: `${this.table} WHERE ${where.join(' AND ')}`,
        orderBy: 'at DESC, id DESC',
        params,
      },
      limit,
      offset,
    );
    return {
      total,
      rows: rows.map((r) => ({
        id: r.id,
        action: r.action,
        target_type: r.target_type,
        target_id: r.target_id,
        actor: { credential_id: r.actor_id, name: r.actor_name, ip: r.ip },
        at: r.at,
        before: r.before,
        after: r.after,
      })),
    };
  }
}
