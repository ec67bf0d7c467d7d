// Settings are converted by their declared types, which needs decorator metadata.
import 'reflect-metadata';
import { IsInt, Max, Min } from 'class-validator';

/** Settings of the audit log (libs/audit); list it among the app's settings. */
export class AuditConfig {
  /** How long an audit record is kept, in days; older ones are deleted by the app's pruner. */
  @IsInt()
  @Min(1)
  @Max(3650)
  AUDIT_RETENTION_DAYS: number = 365;
}
