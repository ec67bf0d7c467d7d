import { Injectable } from '@nestjs/common';
import { audited, AuditLog, type AuditActor } from '@app/audit';
import { isUuid } from '@app/auth';
import { Sql } from '@app/database';
import type { PageQuery } from '@app/pagination';
import { auditedToken, issueToken, type IssuedToken } from './token.issuer';
import { TokenVerifier } from './token-verifier.service';
import type { CreateTokenDto, TokenDto, UpdateTokenDto } from './token.dto';
import { ungrantableScope } from './token-grant';
import { TokenNotFoundException, TokenScopeNotHeldException } from './tokens.exception';
import { TokensRepository, type TokenChanges } from './tokens.repository';
import type { TokenScopes } from './token-scopes';

@Injectable()
export class TokensService {
  constructor(
    private readonly tokens: TokensRepository,
    private readonly verifier: TokenVerifier,
    private readonly sql: Sql,
    private readonly audit: AuditLog,
  ) {}

  /** `holder` is the scopes of the token making the request: it may grant no more than those. */
  async create(clientId: string, holder: TokenScopes, input: CreateTokenDto, actor: AuditActor): Promise<IssuedToken> {
    assertGrantable(holder, input.scopes);
    return issueToken(this.tokens, { sql: this.sql, audit: this.audit, actor }, clientId, input.name, input.scopes, input.expires_at ?? null);
  }

  async list(clientId: string, page: PageQuery): Promise<{ rows: TokenDto[]; total: number }> {
    await this.verifier.flushLastUsed();
    return this.tokens.list(clientId, page.perPage, page.offset);
  }

  async update(clientId: string, holder: TokenScopes, id: string, input: UpdateTokenDto, actor: AuditActor): Promise<TokenDto> {
    if (input.scopes !== undefined) assertGrantable(holder, input.scopes);
    const token = await this.change(clientId, id, input, 'token.updated', actor);
    this.verifier.evict(id);
    return token;
  }

  async revoke(clientId: string, id: string, actor: AuditActor): Promise<void> {
    await this.change(clientId, id, { status: 'revoked' }, 'token.revoked', actor);
    this.verifier.evict(id);
  }

  /** The change and its audit record, in one transaction. */
  private async change(clientId: string, id: string, changes: TokenChanges, action: string, actor: AuditActor): Promise<TokenDto> {
    const token = !isUuid(id)
      ? null
      : await audited(this.sql, this.audit, actor, async (tx, record) => {
          const before = await this.tokens.locked(tx, clientId, id);
          if (!before) return null;
          const after = (await this.tokens.update(clientId, id, changes, tx))!;
          await record({
            tenantId: clientId,
            action,
            targetType: 'token',
            targetId: id,
            before: auditedToken(before),
            after: auditedToken(after),
          });
          return after;
        });
    if (!token) throw new TokenNotFoundException();
    return token;
  }
}

function assertGrantable(holder: TokenScopes, requested: TokenScopes): void {
  const scope = ungrantableScope(holder, requested);
  if (scope !== null) throw new TokenScopeNotHeldException(scope);
}
