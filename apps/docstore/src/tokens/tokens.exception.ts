import { AppException } from '@app/errors';

export enum TokenErrorCode {
  NotFound = 'TOKEN_NOT_FOUND',
  ScopeNotHeld = 'TOKEN_SCOPE_NOT_HELD',
}

export class TokenNotFoundException extends AppException {
  constructor() {
    super(TokenErrorCode.NotFound, 404, 'Token not found.');
  }
}

/** A token may grant, to tokens it creates or updates, only scopes it holds itself. */
export class TokenScopeNotHeldException extends AppException {
  constructor(scope: string) {
    super(TokenErrorCode.ScopeNotHeld, 403, `This token cannot grant ${scope}: a token may only grant scopes it holds itself.`, { error: 'Forbidden' });
  }
}
