import { ApiProperty } from '@nestjs/swagger';
import { list, Rule, text } from '../common/rule.decorator';
import { foldKeyword, MAX_KEYWORD_LENGTH, MAX_KEYWORDS } from './opt-out-keywords';

/** GET / PUT api/OptOuts/{wa_id}: a contact opted out of the account's marketing templates and free-form messages. */
export class OptOutView {
  @ApiProperty({ example: '15550123456' })
  wa_id!: string;

  @ApiProperty({ enum: ['keyword', 'api'], description: 'keyword: the contact wrote an opt-out keyword; api: PUT api/OptOuts/{wa_id}.', example: 'keyword' })
  source!: string;

  @ApiProperty({ type: String, nullable: true, description: 'The keyword, folded (upper case, no accents).', example: 'PARAR' })
  keyword!: string | null;

  @ApiProperty({ format: 'date-time', example: '2026-11-27T10:00:00.000000Z' })
  opted_out_at!: string;
}

const keywordList = (v: unknown) =>
  list(v, 1, MAX_KEYWORDS, (item) => text(item, { max: MAX_KEYWORD_LENGTH }) ?? (foldKeyword(item as string) === '' ? 'must hold a letter or digit' : null));

/** PUT api/OptOuts/Keywords, and its answer (GET api/OptOuts/Keywords): the account's keywords, compared case and accent insensitively. */
export class OptOutKeywords {
  @ApiProperty({ type: [String], minItems: 1, maxItems: MAX_KEYWORDS, example: ['STOP', 'PARAR', 'SAIR', 'CANCELAR'] })
  @Rule('optOutKeywords', keywordList)
  opt_out!: string[];

  @ApiProperty({ type: [String], minItems: 1, maxItems: MAX_KEYWORDS, example: ['START', 'VOLTAR'] })
  @Rule('optInKeywords', (v, dto) => {
    const refusal = keywordList(v);
    if (refusal) return refusal;
    const out = new Set(Array.isArray(dto.opt_out) ? dto.opt_out.filter((k): k is string => typeof k === 'string').map(foldKeyword) : []);
    const both = (v as string[]).find((k) => out.has(foldKeyword(k)));
    return both === undefined ? null : `must not repeat an opt-out keyword (${both})`;
  })
  opt_in!: string[];
}
