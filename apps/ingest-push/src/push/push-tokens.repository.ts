import { Injectable } from '@nestjs/common';
import { Sql } from '@app/database';
import { AccountCredentialsRepository } from '../accounts/account-credentials.repository';

/** Bearer tokens of accounts. */
@Injectable()
export class PushTokensRepository extends AccountCredentialsRepository {
  constructor(db: Sql) {
    super(db, 'push_tokens');
  }
}
