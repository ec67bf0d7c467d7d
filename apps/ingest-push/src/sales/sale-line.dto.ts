import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, IsUUID, Matches, MaxLength, ValidateBy, type ValidationOptions } from 'class-validator';
import { SALE_FIELDS, SALE_TYPES } from './sale-fields';
import { decodeSaleCursor } from './sale-cursor';

/** What a filter on a text column may hold (a key of the file: OrderId, ProductId, StoreId, OrderStatus). */
const MAX_KEY_LENGTH = 1000;
/** Page sizes of GET …/sales and row counts of GET …/sales/summary. */
export const MAX_LINES_PER_PAGE = 1000;
export const DEFAULT_LINES_PER_PAGE = 100;
export const MAX_SUMMARY_ROWS = 1000;

const INSTANT = /^(\d{4})-(\d\d)-(\d\d)(?:T(\d\d):(\d\d)(?::(\d\d)(?:\.\d{1,6})?)?(?:Z|[+-](\d\d):(\d\d)))?$/;

/**
 * A date (`2026-11-01`, midnight UTC) or a date-time with its offset (`2026-11-01T12:00:00Z`) PostgreSQL reads as
 * written: a real calendar day, hours < 24, minutes and seconds < 60, offsets up to ±14:59.
 */
export function isSalesInstant(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  const m = INSTANT.exec(value);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const day = new Date(Date.UTC(y, mo - 1, d));
  if (y < 1 || day.getUTCFullYear() !== y || day.getUTCMonth() !== mo - 1 || day.getUTCDate() !== d) return false;
  if (m[4] !== undefined && (Number(m[4]) > 23 || Number(m[5]) > 59 || Number(m[6] ?? 0) > 59)) return false;
  return m[7] === undefined || (Number(m[7]) <= 14 && Number(m[8]) <= 59);
}

/** The instant as PostgreSQL must read it: a date alone is midnight UTC (not the session's time zone). */
export function salesInstant(value: string): string {
  return value.length === 10 ? `${value}T00:00:00Z` : value;
}

const IsSalesInstant = (options?: ValidationOptions): PropertyDecorator =>
  ValidateBy(
    {
      name: 'isSalesInstant',
      validator: {
        validate: isSalesInstant,
        defaultMessage: (args) => `The ${args?.property} field must be a date (2026-11-01) or a date-time with its offset (2026-11-01T12:00:00Z).`,
      },
    },
    options,
  );

const IsSaleCursor = (): PropertyDecorator =>
  ValidateBy({
    name: 'isSaleCursor',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && decodeSaleCursor(value) !== null,
      defaultMessage: () => 'The cursor field must be a next_cursor this endpoint gave.',
    },
  });

const KEY = (what: string) => ({ description: `Only lines whose ${what} is exactly this.`, maxLength: MAX_KEY_LENGTH });
const keyMessage = (field: string) => ({ message: `The ${field} field must be one string of at most ${MAX_KEY_LENGTH} characters.` });

/** The filters GET …/sales and GET …/sales/summary share; each is one value (an array is 422). */
export class SaleFilterQueryDto {
  @ApiPropertyOptional({ description: 'OrderDate from (inclusive): a date (midnight UTC) or a date-time with offset.', example: '2026-11-01' })
  @IsOptional()
  @IsSalesInstant()
  from?: string;

  @ApiPropertyOptional({ description: 'OrderDate before (exclusive).', example: '2026-12-01' })
  @IsOptional()
  @IsSalesInstant()
  to?: string;

  @ApiPropertyOptional(KEY('StoreId'))
  @IsOptional()
  @IsString(keyMessage('store'))
  @MaxLength(MAX_KEY_LENGTH, keyMessage('store'))
  store?: string;

  @ApiPropertyOptional(KEY('ProductId'))
  @IsOptional()
  @IsString(keyMessage('product'))
  @MaxLength(MAX_KEY_LENGTH, keyMessage('product'))
  product?: string;

  @ApiPropertyOptional(KEY('OrderId'))
  @IsOptional()
  @IsString(keyMessage('order'))
  @MaxLength(MAX_KEY_LENGTH, keyMessage('order'))
  order?: string;

  @ApiPropertyOptional(KEY('OrderStatus'))
  @IsOptional()
  @IsString(keyMessage('status'))
  @MaxLength(MAX_KEY_LENGTH, keyMessage('status'))
  status?: string;

  @ApiPropertyOptional({
    description: 'A CPF or CNPJ, matched by its digits whatever the punctuation (123.456.789-09 = 12345678909).',
    example: '123.456.789-09',
  })
  @IsOptional()
  @IsString()
  @Matches(/^[^0-9]{0,20}(?:[0-9][^0-9]{0,20}){1,32}$/, { message: 'The customer field must be a CPF or CNPJ: 1 to 32 digits, with any punctuation.' })
  customer?: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'Only lines the ingestion last wrote.' })
  @IsOptional()
  @IsUUID('all', { message: 'The ingestion field must be an ingestion id (a UUID).' })
  ingestion?: string;
}

/** GET …/sales: the filters, then `cursor` (a `next_cursor`) and `limit`. */
export class SaleLineQueryDto extends SaleFilterQueryDto {
  @ApiPropertyOptional({ description: 'The `next_cursor` of the previous page; the same filters must be sent again.' })
  @IsOptional()
  @IsSaleCursor()
  cursor?: string;

  @ApiPropertyOptional({
    type: Integer(),
    minimum: 1,
    maximum: MAX_LINES_PER_PAGE,
    default: DEFAULT_LINES_PER_PAGE,
    description: 'Lines per page (JSON only).',
  })
  @IsOptional()
  @Matches(/^0*(?:[1-9]\d{0,2}|1000)$/, { message: `The limit field must be a whole number from 1 to ${MAX_LINES_PER_PAGE}.` })
  limit?: string;
}

function Integer(): 'integer' {
  return 'integer';
}

/** One sale line as uploaded: the 32 Sale fields, null where the file left an optional one empty. */
export class SaleLine {
  [field: string]: string | number | null;
}
for (const f of SALE_FIELDS) {
  ApiProperty({ ...SALE_TYPES[f.type].schema, nullable: !f.required, required: true } as Parameters<typeof ApiProperty>[0])(SaleLine.prototype, f.name);
}

/** A page of GET …/sales: newest OrderDate first. */
export class SaleLinePage {
  @ApiProperty({ type: [SaleLine] }) data!: SaleLine[];
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Pass it as `cursor` for the next page (with the same filters); null on the last page.',
  })
  next_cursor!: string | null;
}

export const SUMMARY_GROUPS = ['day', 'month', 'store', 'product', 'category', 'brand', 'state', 'payment'] as const;
export type SummaryGroup = (typeof SUMMARY_GROUPS)[number];

/** GET …/sales/summary: the filters, `group_by` and `limit`. */
export class SalesSummaryQueryDto extends SaleFilterQueryDto {
  @ApiProperty({ enum: SUMMARY_GROUPS, description: 'day and month are UTC; state is StoreState; payment is PaymentMethods as written.' })
  @IsIn(SUMMARY_GROUPS, { message: `The group_by field must be one of ${SUMMARY_GROUPS.join(', ')}.` })
  group_by!: SummaryGroup;

  @ApiPropertyOptional({
    type: Integer(),
    minimum: 1,
    maximum: MAX_SUMMARY_ROWS,
    default: 100,
    description: 'Most groups answered: day and month the first ones in time, the others the top ones by revenue.',
  })
  @IsOptional()
  @Matches(/^0*(?:[1-9]\d{0,2}|1000)$/, { message: `The limit field must be a whole number from 1 to ${MAX_SUMMARY_ROWS}.` })
  limit?: string;
}

const MONEY = { type: String, pattern: '^-?\\d+\\.\\d{2}$', example: '1234.50' };

/** The totals of one group. Money is a decimal string in cents, summed exactly (numeric), never in floats. */
export class SalesSummaryRow {
  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'The group: 2026-11-30 (day), 2026-11 (month), or the StoreId, ProductId, ProductCategory, ProductBrand, StoreState or PaymentMethods; null when the lines leave it empty.',
  })
  key!: string | null;
  @ApiProperty({ description: 'Distinct OrderIds.', example: 12 }) orders!: number;
  @ApiProperty({ description: 'Sale lines.', example: 30 }) lines!: number;
  @ApiProperty({ description: 'Sum of ProductQuantity (an empty one counts 1).', example: 41 }) quantity!: number;
  @ApiProperty({ ...MONEY, description: 'Sum of ProductPrice × ProductQuantity.' }) revenue!: string;
  @ApiProperty({ ...MONEY, description: "Sum of each order's OrderDiscount, once per order." }) discount!: string;
  @ApiProperty({ ...MONEY, description: 'revenue / orders.' }) average_ticket!: string;
}

export class SalesSummary {
  @ApiProperty({ enum: SUMMARY_GROUPS }) group_by!: SummaryGroup;
  @ApiProperty({ type: String, nullable: true, format: 'date-time' }) from!: string | null;
  @ApiProperty({ type: String, nullable: true, format: 'date-time' }) to!: string | null;
  @ApiProperty({ type: [SalesSummaryRow] }) data!: SalesSummaryRow[];
}
