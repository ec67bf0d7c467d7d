import { AuditLog1767000000000 } from './migrations/1767000000000-audit-log.migration';

/** Add to the app's migrations (the table in the app's own schema); `@app/audit/migrations` loads nothing else. */
export const auditMigrations = [AuditLog1767000000000];
