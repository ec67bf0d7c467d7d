import type { Sql, SqlClient, SqlRunner } from '@app/database';
import { changedFields, type Fields } from './audit-mask';

/** Who made a change and from where. */
export interface AuditActor {
  /** The credential's id (a token, an API key, a push token), or `cli`. */
  credentialId: string;
  /** The credential's name when it has one. */
  credentialName: string | null;
  /** The client address as express sees it through the app's TRUST_PROXY; null off the network. */
  ip: string | null;
}

/** The command line (the commands that issue credentials): no credential, no address. */
export const CLI_ACTOR: AuditActor = { credentialId: 'cli', credentialName: 'cli', ip: null };

/** What changed: `action` is `<target>.<verb>` (`webhook.rotated`); `before`/`after` are the target's fields, unmasked. */
export interface AuditEntry {
  tenantId: string;
  action: string;
  targetType: string;
  targetId: string;
  before?: Fields | null;
  after?: Fields | null;
}

/** Writes audit records on the caller's transaction. AuditLog in the app; `auditRecorder(schema)` in the commands. */
export interface AuditRecorder {
  record(tx: SqlRunner, actor: AuditActor, entry: AuditEntry): Promise<void>;
}

export const auditTable = (schema: string): string => `"${schema.replace(/"/g, '""')}".audit_log`;

/** A recorder on the schema's `audit_log`, for code that runs without Nest (the commands). */
export function auditRecorder(schema: string): AuditRecorder {
  const table = auditTable(schema);
  return {
    async record(tx, actor, entry) {
      const { before, after } = changedFields(entry.before ?? null, entry.after ?? null);
      await tx.rows(
        `INSERT INTO ${table} (tenant_id, actor_id, actor_name, action, target_type, target_id, ip, before, after)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        [entry.tenantId, actor.credentialId, actor.credentialName, entry.action, entry.targetType, entry.targetId, actor.ip, before, after],
      );
    },
  };
}

/** Writes one audit record on the change's transaction, as the actor `audited` was given. */
export type RecordAudit = (entry: AuditEntry) => Promise<void>;

/**
 * The audited write, the one way a change and its audit record are written: runs `change` in one transaction of
 * `sql`, giving it the transaction and `record`, which writes a record on that same transaction as `actor`. Both
 * commit together or not at all: a change that throws (refused, conflicting, not found) leaves no record, and a
 * record that cannot be written undoes the change. A change that finds nothing to change records nothing.
 */
export function audited<T>(
  sql: Pick<Sql, 'transaction'>,
  recorder: AuditRecorder,
  actor: AuditActor,
  change: (tx: SqlClient, record: RecordAudit) => Promise<T>,
): Promise<T> {
  return sql.transaction((tx) => change(tx, (entry) => recorder.record(tx, actor, entry)));
}
