import { Injectable } from '@nestjs/common';
import { isUuid } from '@app/auth';
import type { PageQuery } from '@app/pagination';
import { issueToken, type IssuedToken } from './token-issuer';
import { TokenVerifier } from './token-verifier.service';
import type { CreateTokenDto, TokenDto, UpdateTokenDto } from './token.dto';
import { ungrantableScope } from './token-grant';
import { TokenNotFoundException, TokenScopeNotHeldException } from './tokens.exception';
import { TokensRepository } from './tokens.repository';
import type { TokenScopes } from './token-scopes';

@Injectable()
export class TokensService {
  constructor(
    private readonly tokens: TokensRepository,
    private readonly verifier: TokenVerifier,
  ) {}

  /** `holder` is the scopes of the token making the request: it may grant no more than those. */
  async create(clientId: string, holder: TokenScopes, input: CreateTokenDto): Promise<IssuedToken> {
    assertGrantable(holder, input.scopes);
    return issueToken(this.tokens, clientId, input.name, input.scopes, input.expires_at ?? null);
  }

  async list(clientId: string, page: PageQuery): Promise<{ rows: TokenDto[]; total: number }> {
    await this.verifier.flushLastUsed();
    return this.tokens.list(clientId, page.perPage, page.offset);
  }

  async update(clientId: string, holder: TokenScopes, id: string, input: UpdateTokenDto): Promise<TokenDto> {
    if (input.scopes !== undefined) assertGrantable(holder, input.scopes);
    const token = isUuid(id) ? await this.tokens.update(clientId, id, input) : null;
    if (!token) throw new TokenNotFoundException();
    this.verifier.evict(id);
    return token;
  }

  async revoke(clientId: string, id: string): Promise<void> {
    const token = isUuid(id) ? await this.tokens.update(clientId, id, { status: 'revoked' }) : null;
    if (!token) throw new TokenNotFoundException();
    this.verifier.evict(id);
  }
}

function assertGrantable(holder: TokenScopes, requested: TokenScopes): void {
  const scope = ungrantableScope(holder, requested);
  if (scope !== null) throw new TokenScopeNotHeldException(scope);
}
