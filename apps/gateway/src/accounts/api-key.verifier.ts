import { Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { isUuid, secretMatches, type Credential, type CredentialVerifier } from '@app/auth';
import { SecretCipher } from '@app/secrets';
import { GatewayConfig } from '../config/gateway.config';
import type { PhoneContext } from '../providers/chat-provider';
import { AccountsRepository, type PhoneRow } from './accounts.repository';
import type { GatewayPrincipal } from './gateway-principal';

interface CacheEntry {
  hash: Buffer;
  phone: PhoneContext;
  until: number;
}

/**
 * Verifies the `apikey` header (`<id>|<secret>`): the secret's SHA-256 compared in
 * constant time, the key's row and phone cached for APIKEY_CACHE_TTL_SECONDS, last use
 * written in batches.
 */
@Injectable()
export class ApiKeyVerifier implements CredentialVerifier, OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(ApiKeyVerifier.name);
  private readonly cache = new Map<string, CacheEntry>();
  private lastUsed = new Map<string, Date>();
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly accounts: AccountsRepository,
    private readonly config: GatewayConfig,
    private readonly cipher: SecretCipher,
  ) {}

  onModuleInit(): void {
    this.timer = setInterval(() => void this.flush(), 30_000);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }

  async verify(credential: Credential): Promise<GatewayPrincipal | null> {
    if (!isUuid(credential.id)) return null;
    const id = credential.id.toLowerCase();
    const entry = await this.lookup(id);
    if (!entry || !secretMatches(credential.secret, entry.hash)) return null;
    this.lastUsed.set(id, new Date());
    return { tokenId: id, clientId: entry.phone.accountId, scopes: [], phone: entry.phone };
  }

  /** The phone context of a row: the account's access token decrypted. */
  phoneContext(row: PhoneRow): PhoneContext {
    return {
      accountId: row.account_id,
      phoneRef: row.phone_ref,
      phone: row.phone,
      phoneId: row.phone_id,
      wabaId: row.waba_id,
      accessToken: row.access_token === null ? null : this.cipher.decrypt(row.access_token),
    };
  }

  private async lookup(id: string): Promise<CacheEntry | null> {
    const now = Date.now();
    const hit = this.cache.get(id);
    if (hit && hit.until > now) return hit;
    const row = await this.accounts.findKey(id);
    if (!row) return null;
    const entry = { hash: row.secret_hash, phone: this.phoneContext(row), until: now + this.config.APIKEY_CACHE_TTL_SECONDS * 1000 };
    if (this.config.APIKEY_CACHE_TTL_SECONDS > 0) {
      if (this.cache.size >= 100_000) this.cache.clear();
      this.cache.set(id, entry);
    }
    return entry;
  }

  private async flush(): Promise<void> {
    if (this.lastUsed.size === 0) return;
    const batch = this.lastUsed;
    this.lastUsed = new Map();
    try {
      await this.accounts.touch(batch);
    } catch (error) {
      this.logger.warn({ err: error }, 'could not record API key last use');
    }
  }
}
