import { Body, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { GatewayApi } from '../common/api-version.guard';
import { CurrentPhone } from '../accounts/current-phone.decorator';
import type { PhoneContext } from '../network/chat-provider';
import { SandboxInboundAnswer } from './conversation-answers.dto';
import { SandboxInboundBody } from './sandbox-inbound.dto';
import { SandboxInboundService } from './sandbox-inbound.service';

@GatewayApi('Sandbox')
export class SandboxInboundController {
  constructor(private readonly sandbox: SandboxInboundService) {}

  @Post('Inbound')
  @HttpCode(200)
  @ApiOperation({ summary: "Sandbox only: a customer's message to the phone, notified as the network would (stored, forwarded to webhooks)" })
  @ApiOkResponse({ type: SandboxInboundAnswer })
  inbound(@CurrentPhone() phone: PhoneContext, @Body() body: SandboxInboundBody): Promise<SandboxInboundAnswer> {
    return this.sandbox.inject(phone, body);
  }
}
