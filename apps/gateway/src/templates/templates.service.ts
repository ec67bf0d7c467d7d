import { Inject, Injectable } from '@nestjs/common';
import { isNumericId } from '../common/numeric-id';
import { cursorPage, keyCursor, keyOf, type CursorPage, type CursorPaging } from '../common/cursor-page';
import { ResourceNotFoundException } from '../errors/network-error.exception';
import { CHAT_PROVIDER, type ChatProvider, type PhoneContext } from '../network/chat-provider';
import type { TemplateListQuery } from './template-query.dto';
import { templateDraft, type CreateTemplateBody } from './template.dto';
import type { TemplateCreated, TemplateView } from './template-answers.dto';
import { TemplatesRepository } from './templates.repository';

@Injectable()
export class TemplatesService {
  constructor(
    private readonly templates: TemplatesRepository,
    @Inject(CHAT_PROVIDER) private readonly provider: ChatProvider,
  ) {}

  /** Creates a template; one with the same name and language is returned unchanged instead (created: false). */
  async create(phone: PhoneContext, body: CreateTemplateBody): Promise<{ created: boolean; template: TemplateCreated }> {
    const draft = templateDraft(body);
    const existing = await this.templates.findByName(phone.accountId, draft.name, draft.language);
    if (existing) return { created: false, template: summary(existing) };
    const made = await this.provider.createTemplate(phone, draft);
    const stored = await this.templates.insert(phone.accountId, made.id, made.status, made.category, draft);
    if (!stored) {
      const winner = await this.templates.findByName(phone.accountId, draft.name, draft.language);
      return { created: false, template: summary(winner!) };
    }
    this.provider.templateStored(phone, { ...made, bodyText: draft.bodyText });
    return { created: true, template: summary(stored) };
  }

  /** The account's templates, newest first, filtered by status and category. */
  async list(phone: PhoneContext, query: TemplateListQuery, paging: CursorPaging): Promise<CursorPage<TemplateView>> {
    const rows = await this.templates.list(phone.accountId, { status: query.status, category: query.category }, paging.limit, keyOf(paging));
    const next = keyCursor(rows, paging.limit, (row) => row.created_at);
    return cursorPage(
      rows.slice(0, paging.limit).map(({ created_at: _keyset, ...template }) => template),
      paging,
      next,
    );
  }

  async find(phone: PhoneContext, id: string): Promise<TemplateView> {
    const template = isNumericId(id) ? await this.templates.find(phone.accountId, id) : null;
    if (!template) throw new ResourceNotFoundException('template', id);
    return template;
  }
}

function summary(t: TemplateView): TemplateCreated {
  return { id: t.id, status: t.status, category: t.category };
}
