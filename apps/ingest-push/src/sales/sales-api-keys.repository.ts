import { Injectable } from '@nestjs/common';
import { Sql } from '@app/database';
import { AccountCredentialsRepository } from '../accounts/account-credentials.repository';

/** Sales API keys of accounts. */
@Injectable()
export class SalesApiKeysRepository extends AccountCredentialsRepository {
  constructor(db: Sql) {
    super(db, 'sales_api_keys');
  }
}
