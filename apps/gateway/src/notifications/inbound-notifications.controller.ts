import { Body, Controller, Get, Header, Headers, HttpCode, Post, Query, UseFilters, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { Public, StreamBody } from '@app/auth';
import { ApiErrors } from '@app/errors';
import { InvalidInputFilter } from '../common/invalid-input.filter';
import { SingleQueryValuesGuard } from '../common/single-query-values.guard';
import { SuccessAnswer } from '../common/cursor-page.dto';
import { InboundNotificationsService } from './inbound-notifications.service';
import { VerifyQuery } from './verify-query.dto';

const LIMIT = 3 * 1024 * 1024;

/**
 * Where the network notifies the gateway (configure this URL as the app's webhook with the
 * cloud provider). Public: the network proves itself with the verify token and the
 * X-Hub-Signature-256 of each body, which is why the body is read as raw bytes.
 */
@ApiTags('Network (not for clients)')
@ApiErrors(400, 403)
@Public()
@UseGuards(SingleQueryValuesGuard)
@UseFilters(InvalidInputFilter)
@Controller('network/notifications')
export class InboundNotificationsController {
  constructor(private readonly inbound: InboundNotificationsService) {}

  @Get()
  @ApiOperation({ summary: "The network's endpoint check: echoes hub.challenge when the verify token matches" })
  @ApiProduces('text/plain')
  @ApiOkResponse({ description: 'hub.challenge', content: { 'text/plain': { schema: { type: 'string', example: '1158201444' } } } })
  @Header('content-type', 'text/plain; charset=utf-8')
  verify(@Query() query: VerifyQuery): string {
    return this.inbound.verify(query);
  }

  @Post()
  @ApiOperation({ summary: 'A notification from the network, signed with X-Hub-Signature-256 over its bytes' })
  @ApiOkResponse({ type: SuccessAnswer })
  @HttpCode(200)
  @StreamBody({ limit: LIMIT, raw: true })
  async receive(@Body() body: Buffer, @Headers('x-hub-signature-256') signature?: string): Promise<SuccessAnswer> {
    await this.inbound.receive(body, signature);
    return { success: true };
  }
}
