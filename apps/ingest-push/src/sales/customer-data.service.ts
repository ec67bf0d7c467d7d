import { audited, AuditLog, type AuditActor } from '@app/audit';
import { Sql } from '@app/database';
import { Injectable, Logger } from '@nestjs/common';
import { documentDigits } from './cpf-cnpj';
import type { CustomerData, CustomerErasure } from './customer-data.dto';
import { customerSubject, subjectKeys, type SubjectKey } from './customer-subject';
import { SaleLinesRepository } from './sale-lines.repository';
import { saleLine } from './sale-lines.service';
import { SalesConfig } from './sales.config';
import { ErasureNotConfiguredException, InvalidCpfCnpjException } from './sales.exception';
import type { SalesCaller } from './sales.service';

const MAX_DOCUMENT_CHARS = 64;
const MAX_DOCUMENT_DIGITS = 32;

/**
 * A customer's data on request (LGPD art. 18): everything the account holds about a CPF/CNPJ, and its erasure.
 * The customer is named only by digits, so `123.456.789-09` and `12345678909` are one customer.
 */
@Injectable()
export class CustomerDataService {
  private readonly logger = new Logger('Sales');
  private readonly keys: SubjectKey[];

  constructor(
    private readonly repository: SaleLinesRepository,
    config: SalesConfig,
    private readonly sql: Sql,
    private readonly audit: AuditLog,
  ) {
    this.keys = subjectKeys(config.ENCRYPTION_KEYS);
  }

  async find(accountId: string, cpfCnpj: string): Promise<CustomerData> {
    const digits = digitsOf(cpfCnpj);
    const [lines, errors, erasedAt] = await Promise.all([
      this.repository.customerLines(accountId, digits),
      this.repository.customerErrors(accountId, digits),
      this.repository.erasuresOf(accountId, this.keys, digits),
    ]);
    return { cpf_cnpj: digits, lines: lines.map(saleLine), errors, erased_at: erasedAt };
  }

  /** Erases the customer's personal fields and the row errors naming it, in one transaction, and records that without personal data. */
  async erase(caller: SalesCaller, cpfCnpj: string, actor: AuditActor): Promise<CustomerErasure> {
    const digits = digitsOf(cpfCnpj);
    if (this.keys.length === 0) throw new ErasureNotConfiguredException();
    const key = this.keys[0];
    const subject = customerSubject(key, digits);
    const erased = await audited(this.sql, this.audit, actor, async (tx, record) => {
      const counts = await this.repository.eraseCustomer(tx, caller.accountId, digits, { subject, keyId: key.id, apiKeyId: caller.apiKeyId });
      // The record names the customer by the erasure's keyed hash, never by the CPF/CNPJ.
      await record({ tenantId: caller.accountId, action: 'customer.erased', targetType: 'customer', targetId: subject, after: { ...counts, key_id: key.id } });
      return counts;
    });
    // The log names the account and the counts, never the customer.
    this.logger.log({ accountId: caller.accountId, apiKeyId: caller.apiKeyId, ...erased }, 'customer erased');
    return erased;
  }
}

function digitsOf(cpfCnpj: string): string {
  const digits = documentDigits(cpfCnpj);
  if (cpfCnpj.length > MAX_DOCUMENT_CHARS || digits.length === 0 || digits.length > MAX_DOCUMENT_DIGITS) throw new InvalidCpfCnpjException();
  return digits;
}
