import { Body, Delete, Get, HttpCode, Param, Put } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { Actor, type AuditActor } from '@app/audit';
import { ApiErrors } from '@app/errors';
import { CurrentPhone } from '../accounts/current-phone.decorator';
import { GatewayApi } from '../common/api-version.guard';
import type { PhoneContext } from '../network/chat-provider';
import { OptOutKeywords, OptOutView } from './opt-out.dto';
import { OptOutsService } from './opt-outs.service';

@GatewayApi('OptOuts')
export class OptOutsController {
  constructor(private readonly optOuts: OptOutsService) {}

  // Declared before `:wa_id`, which it would otherwise match (a wa_id is digits).
  @Get('Keywords')
  @ApiOperation({ summary: "The account's opt-out and opt-in keywords" })
  @ApiOkResponse({ type: OptOutKeywords })
  keywords(@CurrentPhone() phone: PhoneContext): Promise<OptOutKeywords> {
    return this.optOuts.keywords(phone);
  }

  @Put('Keywords')
  @ApiOperation({ summary: "Replace the account's opt-out and opt-in keywords" })
  @ApiOkResponse({ type: OptOutKeywords })
  setKeywords(@CurrentPhone() phone: PhoneContext, @Body() body: OptOutKeywords, @Actor() actor: AuditActor): Promise<OptOutKeywords> {
    return this.optOuts.setKeywords(phone, body, actor);
  }

  @Get(':wa_id')
  @ApiOperation({ summary: "A contact's opt-out (404 when the contact has not opted out)" })
  @ApiOkResponse({ type: OptOutView })
  @ApiErrors(404)
  find(@CurrentPhone() phone: PhoneContext, @Param('wa_id') waId: string): Promise<OptOutView> {
    return this.optOuts.find(phone, waId);
  }

  @Put(':wa_id')
  @ApiOperation({ summary: 'Opt a contact out by hand (an existing opt-out is kept)' })
  @ApiOkResponse({ type: OptOutView })
  @ApiErrors(404)
  put(@CurrentPhone() phone: PhoneContext, @Param('wa_id') waId: string, @Actor() actor: AuditActor): Promise<OptOutView> {
    return this.optOuts.put(phone, waId, actor);
  }

  @Delete(':wa_id')
  @HttpCode(204)
  @ApiOperation({ summary: "Lift a contact's opt-out" })
  @ApiNoContentResponse({ description: 'Lifted.' })
  @ApiErrors(404)
  async remove(@CurrentPhone() phone: PhoneContext, @Param('wa_id') waId: string, @Actor() actor: AuditActor): Promise<void> {
    await this.optOuts.remove(phone, waId, actor);
  }
}
