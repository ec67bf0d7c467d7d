import { ApiProperty } from '@nestjs/swagger';
import { SaleLine } from './sale-line.dto';

/** A stored row error that names the customer: the only customer data a row error can hold is an unknown JSON key (`field`). */
export class CustomerRowError {
  @ApiProperty({ format: 'uuid' }) ingestion_id!: string;
  @ApiProperty({ example: 3 }) line!: number;
  @ApiProperty({ example: 2 }) record!: number;
  @ApiProperty({ example: '123.456.789-09' }) field!: string;
  @ApiProperty({ example: 'is not a Sale field' }) reason!: string;
}

/** GET …/sales/customers/{cpf_cnpj}: everything the account holds about the customer (LGPD art. 18). */
export class CustomerData {
  @ApiProperty({ description: 'The CPF/CNPJ digits the lines were matched by.', example: '12345678909' }) cpf_cnpj!: string;
  @ApiProperty({ type: [SaleLine], description: "The customer's sale lines with their personal fields, newest first." }) lines!: SaleLine[];
  @ApiProperty({ type: [CustomerRowError], description: 'Stored row errors naming the customer.' }) errors!: CustomerRowError[];
  @ApiProperty({
    type: [String],
    format: 'date-time',
    description: 'When the account erased this customer before (newest first); lines listed now were uploaded since.',
  })
  erased_at!: string[];
}

/** DELETE …/sales/customers/{cpf_cnpj}: what was erased. */
export class CustomerErasure {
  @ApiProperty({ description: 'Sale lines whose personal fields were erased (their amounts stay).', example: 3 }) lines!: number;
  @ApiProperty({ description: 'Stored row errors naming the customer, deleted.', example: 0 }) errors!: number;
}
