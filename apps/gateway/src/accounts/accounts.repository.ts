import { audited, auditRecorder, CLI_ACTOR } from '@app/audit/recorder';
import { GATEWAY_SCHEMA } from '../database/gateway.schema';
import { Injectable } from '@nestjs/common';
import { Sql } from '@app/database';

export interface ApiKeyRow {
  secret_hash: Buffer;
  name: string;
  account_id: string;
  phone_ref: string;
  phone: string;
  phone_id: string;
  waba_id: string | null;
  access_token: string | null;
}

export interface PhoneRow {
  phone_ref: string;
  account_id: string;
  phone: string;
  phone_id: string;
  waba_id: string | null;
  access_token: string | null;
}

const PHONE_COLUMNS = `p.id AS phone_ref, p.account_id, p.phone, p.phone_id, a.waba_id, a.access_token`;

@Injectable()
export class AccountsRepository {
  constructor(private readonly sql: Sql) {}

  findKey(id: string): Promise<ApiKeyRow | null> {
    return this.sql.one<ApiKeyRow>(
      `SELECT k.key_hash AS secret_hash, k.name, ${PHONE_COLUMNS}
         FROM gateway.api_keys k JOIN gateway.phones p ON p.id = k.phone_ref JOIN gateway.accounts a ON a.id = p.account_id
        WHERE k.id = $1`,
      [id],
    );
  }

  /** A phone of the account by its network phone-number id. */
  findPhone(accountId: string, phoneId: string): Promise<PhoneRow | null> {
    return this.sql.one<PhoneRow>(
      `SELECT ${PHONE_COLUMNS} FROM gateway.phones p JOIN gateway.accounts a ON a.id = p.account_id WHERE p.account_id = $1 AND p.phone_id = $2`,
      [accountId, phoneId],
    );
  }

  /** A phone by the network's phone-number id (inbound notifications name it). */
  findPhoneById(phoneId: string): Promise<PhoneRow | null> {
    return this.sql.one<PhoneRow>(`SELECT ${PHONE_COLUMNS} FROM gateway.phones p JOIN gateway.accounts a ON a.id = p.account_id WHERE p.phone_id = $1`, [
      phoneId,
    ]);
  }

  /** The first phone of the account owning a template. */
  findPhoneByTemplate(templateId: string): Promise<PhoneRow | null> {
    return this.sql.one<PhoneRow>(
      `SELECT ${PHONE_COLUMNS} FROM gateway.templates t JOIN gateway.phones p ON p.account_id = t.account_id JOIN gateway.accounts a ON a.id = p.account_id
        WHERE t.id = $1 ORDER BY p.created_at LIMIT 1`,
      [templateId],
    );
  }

  async touch(lastUsed: ReadonlyMap<string, Date>): Promise<void> {
    await this.sql.rows(`UPDATE gateway.api_keys k SET last_used_at = u.at FROM unnest($1::uuid[], $2::timestamptz[]) AS u(id, at) WHERE k.id = u.id`, [
      [...lastUsed.keys()],
      [...lastUsed.values()],
    ]);
  }

  /**
   * Mints a key for a phone: the phone is created on first use, in the account of its
   * WABA id when one is known, else in a new account; later keys of the same phone-number
   * id join its account. A given access token replaces the account's.
   */
  mintKey(input: {
    id: string;
    phone: string;
    phoneId: string;
    name: string;
    secretHash: Buffer;
    accessToken?: string;
    wabaId?: string;
  }): Promise<{ created: boolean }> {
    // Keys are issued by the command line only; its record names no credential and no address.
    return audited(this.sql, auditRecorder(GATEWAY_SCHEMA), CLI_ACTOR, async (tx, record) => {
      let phone = await tx.one<{ id: string; account_id: string; phone: string }>(
        `SELECT id, account_id, phone FROM gateway.phones WHERE phone_id = $1 FOR UPDATE`,
        [input.phoneId],
      );
      const created = !phone;
      if (!phone) {
        // A new phone of a known WABA joins its account; otherwise it starts one.
        const account = await tx.one<{ id: string }>(
          `INSERT INTO gateway.accounts (name, waba_id, access_token) VALUES ($1, $2, $3)
           ON CONFLICT (waba_id) WHERE waba_id IS NOT NULL DO UPDATE SET access_token = COALESCE(EXCLUDED.access_token, gateway.accounts.access_token)
           RETURNING id`,
          [input.name, input.wabaId ?? null, input.accessToken ?? null],
        );
        phone = await tx.one<{ id: string; account_id: string; phone: string }>(
          `INSERT INTO gateway.phones (account_id, phone, phone_id) VALUES ($1, $2, $3) RETURNING id, account_id, phone`,
          [account!.id, input.phone, input.phoneId],
        );
      } else {
        if (phone.phone !== input.phone) throw new Error(`Phone id ${input.phoneId} belongs to phone ${phone.phone}, not ${input.phone}.`);
        await tx.rows(`UPDATE gateway.accounts SET waba_id = COALESCE($2, waba_id), access_token = COALESCE($3, access_token) WHERE id = $1`, [
          phone.account_id,
          input.wabaId ?? null,
          input.accessToken ?? null,
        ]);
      }
      await tx.rows(`INSERT INTO gateway.api_keys (id, phone_ref, name, key_hash) VALUES ($1, $2, $3, $4)`, [
        input.id,
        phone!.id,
        input.name,
        input.secretHash,
      ]);
      await record({
        tenantId: phone!.account_id,
        action: 'api_key.created',
        targetType: 'api_key',
        targetId: input.id,
        after: { name: input.name, phone: input.phone, phone_id: input.phoneId, waba_id: input.wabaId, access_token: input.accessToken && 'set' },
      });
      return { created };
    });
  }
}
