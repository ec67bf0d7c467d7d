import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { KeysetPageQuery } from '../common/cursor-page.dto';
import { oneOf, Rule } from '../common/rule.decorator';
import { TEMPLATE_CATEGORIES, type TemplateCategory } from '../network/chat-provider';

const STATUS = /^[A-Z_]{1,16}$/;

/** GET api/Templates: `status` (the network's review state) and `category`, as the templates carry them, and a keyset page. */
export class TemplateListQuery extends KeysetPageQuery {
  @ApiPropertyOptional({ description: 'e.g. PENDING, APPROVED, REJECTED', pattern: STATUS.source })
  @IsOptional()
  @Rule('templateStatus', (v) => (typeof v === 'string' && STATUS.test(v) ? null : 'must be a template status, e.g. PENDING, APPROVED or REJECTED'))
  status?: string;

  @ApiPropertyOptional({ enum: [...TEMPLATE_CATEGORIES] })
  @IsOptional()
  @Rule('category', (v) => oneOf(v, TEMPLATE_CATEGORIES))
  category?: TemplateCategory;
}

/** What the repository filters on. */
export type TemplateFilter = Pick<TemplateListQuery, 'status' | 'category'>;
