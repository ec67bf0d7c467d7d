import { Injectable } from '@nestjs/common';
import { audited, AuditLog, type AuditActor } from '@app/audit';
import { Sql } from '@app/database';
import { ValidationFailedException } from '@app/errors';
import type { PushSettings, PushSettingsDto } from './push-settings.dto';
import { PushSettingsRepository } from './push-settings.repository';

const NONE: PushSettings = { cap_max_pushes: null, cap_window_hours: null, quiet_start: null, quiet_end: null, updated_at: null };

const settingsFields = ({ updated_at: _, ...fields }: PushSettings) => fields;

/** The account's push rules: both halves of a pair or neither. */
@Injectable()
export class PushSettingsService {
  constructor(
    private readonly repository: PushSettingsRepository,
    private readonly sql: Sql,
    private readonly audit: AuditLog,
  ) {}

  async get(accountId: string): Promise<PushSettings> {
    return (await this.repository.find(accountId)) ?? NONE;
  }

  put(accountId: string, body: PushSettingsDto, actor: AuditActor): Promise<PushSettings> {
    const value = {
      cap_max_pushes: body.cap_max_pushes ?? null,
      cap_window_hours: body.cap_window_hours ?? null,
      quiet_start: body.quiet_start ?? null,
      quiet_end: body.quiet_end ?? null,
    };
    if ((value.cap_max_pushes === null) !== (value.cap_window_hours === null)) {
      throw ValidationFailedException.of(
        value.cap_max_pushes === null ? 'cap_max_pushes' : 'cap_window_hours',
        'cap_max_pushes and cap_window_hours go together.',
      );
    }
    if ((value.quiet_start === null) !== (value.quiet_end === null)) {
      throw ValidationFailedException.of(value.quiet_start === null ? 'quiet_start' : 'quiet_end', 'quiet_start and quiet_end go together.');
    }
    if (value.quiet_start !== null && value.quiet_start === value.quiet_end) {
      throw ValidationFailedException.of('quiet_end', 'quiet_end must differ from quiet_start.');
    }
    return audited(this.sql, this.audit, actor, async (tx, record) => {
      const { before, after } = await this.repository.save(tx, accountId, value);
      await record({
        tenantId: accountId,
        action: 'push_settings.updated',
        targetType: 'push_settings',
        targetId: accountId,
        before: before ? settingsFields(before) : null,
        after: settingsFields(after),
      });
      return after;
    });
  }
}
