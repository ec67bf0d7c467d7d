import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { generateSecret, hashSecret, isUuid } from '@app/auth';
import { storableTimestamp } from '@app/database';
import { ValidationFailedException } from '@app/errors';
import type { PageQuery } from '@app/pagination';
import { TokenVerifier } from './token-verifier.service';
import type { CreateTokenDto, TokenView, UpdateTokenDto } from './token.dto';
import { ungrantableScope } from './token-grant';
import { TokenNotFoundException, TokenScopeNotHeldException } from './tokens.exception';
import { TokensRepository } from './tokens.repository';
import type { TokenScopes } from './token-scopes';

export interface IssuedToken {
  /** `<id>|<secret>`: shown once, never stored. */
  plainText: string;
  token: TokenView;
}

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

  async list(clientId: string, page: PageQuery): Promise<{ rows: TokenView[]; total: number }> {
    await this.verifier.flushLastUsed();
    return this.tokens.list(clientId, page.perPage, page.offset);
  }

  async update(clientId: string, holder: TokenScopes, id: string, input: UpdateTokenDto): Promise<TokenView> {
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

/** Creates a token row and returns its one-time plain text; shared with the first-credentials CLI. */
export async function issueToken(
  tokens: TokensRepository,
  clientId: string,
  name: string,
  scopes: TokenScopes,
  expiresAt: string | null,
): Promise<IssuedToken> {
  const expires = expiresAt === null ? null : storableTimestamp(expiresAt, 'expires_at');
  if (expires !== null && Date.parse(expires) <= Date.now()) {
    throw ValidationFailedException.of('expires_at', 'The expires at field must be a date in the future.');
  }
  const id = randomUUID();
  const secret = generateSecret();
  const token = await tokens.insert({ id, clientId, name, secretHash: hashSecret(secret), scopes, expiresAt: expires });
  return { plainText: `${id}|${secret}`, token };
}
