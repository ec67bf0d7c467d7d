import { Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, IntersectionType } from '@nestjs/swagger';
import { AuditFilterDto, AuditLog, AuditRecordDto } from '@app/audit';
import { CurrentPhone } from '../accounts/current-phone.decorator';
import { GatewayApi } from '../common/api-version.guard';
import { cursorPage, offsetCursor, offsetOf, PageAddress, pagingOf, type CursorPage } from '../common/cursor-page';
import { OffsetPageQuery, PageOf } from '../common/cursor-page.dto';
import type { PhoneContext } from '../network/chat-provider';
import type { PageLocation } from '@app/pagination';

class AuditQuery extends IntersectionType(OffsetPageQuery, AuditFilterDto) {}

const AuditPage = PageOf(AuditRecordDto, 'AuditPage');

/** The account's audit log, whichever of its phones' keys asks: read-only (records are written with their changes). */
@GatewayApi('Audit')
export class AuditController {
  constructor(private readonly audit: AuditLog) {}

  @Get()
  @ApiOperation({ summary: "The account's audit log, newest first: API keys, webhooks, profiles, opt-outs by hand, opt-out keywords" })
  @ApiOkResponse({ type: AuditPage })
  async list(@CurrentPhone() phone: PhoneContext, @Query() query: AuditQuery, @PageAddress() location: PageLocation): Promise<CursorPage<AuditRecordDto>> {
    const paging = pagingOf(query, location);
    const offset = offsetOf(paging);
    const { rows, total } = await this.audit.list(phone.accountId, query, paging.limit, offset);
    return cursorPage(rows, paging, offsetCursor(offset, rows.length, total));
  }
}
