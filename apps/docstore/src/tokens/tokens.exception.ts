import { AppException } from '@app/errors';

export enum TokenErrorCode {
  NotFound = 'TOKEN_NOT_FOUND',
}

export class TokenNotFoundException extends AppException {
  constructor() {
    super(TokenErrorCode.NotFound, 404, 'Token not found.');
  }
}
