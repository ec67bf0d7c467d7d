import { InvalidParameterException } from '../errors/network-error.exception';
import { TEMPLATE_CATEGORIES, type TemplateCategory } from '../network/chat-provider';

/** What GET api/Templates filters on; each absent when not asked for. */
export interface TemplateFilter {
  status?: string;
  category?: TemplateCategory;
}

const STATUS = /^[A-Z_]{1,16}$/;

/** `status` (the network's review state, e.g. PENDING, APPROVED, REJECTED) and `category`, as the templates carry them. */
export function parseTemplateFilter(query: Record<string, unknown>): TemplateFilter {
  const { status, category } = query as Record<string, string | undefined>;
  const filter: TemplateFilter = {};
  if (status !== undefined) {
    if (!STATUS.test(status)) throw new InvalidParameterException('status', 'must be a template status, e.g. PENDING, APPROVED or REJECTED');
    filter.status = status;
  }
  if (category !== undefined) {
    if (!(TEMPLATE_CATEGORIES as readonly string[]).includes(category)) throw new InvalidParameterException('category', `must be one of ${TEMPLATE_CATEGORIES.join(', ')}`);
    filter.category = category as TemplateCategory;
  }
  return filter;
}
