import { Controller, Get, Param, Query, Req, Res } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiHeader,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiQuery,
  ApiResponse,
  ApiTags,
  getSchemaPath,
  ApiExtraModels,
} from '@nestjs/swagger';
import { ApiErrors, ERROR_BODY_SCHEMA_NAME, ValidationFailedException } from '@app/errors';
import type { Request, Response } from 'express';
import { MAX_FILTERS } from '../documents/document-query.dto';
import type { DocstorePrincipal } from '../tokens/docstore-principal';
import { ChangeStreams } from './change-streams.service';
import { ChangeDto, ChangesPageDto, ChangesQueryDto, cursorError, StreamEndDto } from './changes.dto';
import { ChangesService, longPollTimeoutMs } from './changes.service';

const EVENT_STREAM = 'text/event-stream';

/**
 * The change feed of a client. It needs `document:read`, checked by the service rather than by
 * `@RequireScopes`: a token granted it only by document rules sees only its rules' areas.
 */
@ApiTags('changes')
@ApiBearerAuth()
@ApiErrors(401, 403, 429)
@ApiExtraModels(ChangesPageDto, ChangeDto, StreamEndDto)
@ApiParam({ name: 'client', description: "The client's UUID (the token's client).", schema: { type: 'string', format: 'uuid' } })
@Controller('api/v1/client/:client')
export class ChangesController {
  constructor(
    private readonly feed: ChangesService,
    private readonly streams: ChangeStreams,
  ) {}

  @Get('changes')
  @ApiOperation({
    summary: 'Every committed change of the documents the token may read, oldest first, once each, resumable from any cursor',
    description:
      'JSON: one page (feed=longpoll waits for the next change when there is none). ' +
      '`Accept: text/event-stream`: an event stream, one `change` event per change with `id:` its cursor, resumed by `Last-Event-ID`, ' +
      'a comment heartbeat, and a final `end` event (StreamEndDto) on token expiry, revocation or shutdown.',
  })
  @ApiQuery({
    name: 'filter',
    required: false,
    style: 'deepObject',
    explode: true,
    schema: { type: 'object', additionalProperties: { type: 'string' }, example: { price_gte: '5' } },
    description: `The list's field filters (filter[field]=value, _gt, _gte, _lt, _lte, _neq, _like), on the document as the change left it; at most ${MAX_FILTERS}.`,
  })
  @ApiHeader({
    name: 'Last-Event-ID',
    required: false,
    description: 'Event streams: the last cursor received (EventSource sends it when it reconnects); wins over since.',
  })
  @ApiErrors(422)
  @ApiResponse({
    status: 410,
    description: 'The cursor is past retention: the body carries oldest_cursor.',
    schema: { $ref: `#/components/schemas/${ERROR_BODY_SCHEMA_NAME}` },
  })
  @ApiOkResponse({
    description: 'A page of changes, or with Accept: text/event-stream an event stream whose `change` events carry a ChangeDto.',
    content: {
      'application/json': { schema: { $ref: getSchemaPath(ChangesPageDto) } },
      [EVENT_STREAM]: {
        schema: {
          type: 'string',
          description: `id: <cursor>\\nevent: change\\ndata: <${getSchemaPath(ChangeDto)}>; event: end, data: <${getSchemaPath(StreamEndDto)}>`,
        },
      },
    },
  })
  async list(@Param('client') _client: string, @Query() query: ChangesQueryDto, @Req() req: Request, @Res() res: Response): Promise<void> {
    const principal = req.principal as DocstorePrincipal;
    if (wantsEventStream(req)) {
      const lastEventId = req.get('Last-Event-ID');
      const error = lastEventId === undefined ? null : cursorError(lastEventId, 'Last-Event-ID');
      if (error) throw ValidationFailedException.of('Last-Event-ID', error);
      await this.streams.stream(principal, this.feed.reader(principal, query, lastEventId ?? query.since), res);
      return;
    }
    const reader = this.feed.reader(principal, query);
    const page = query.feed === 'longpoll' ? await this.streams.poll(principal, reader, longPollTimeoutMs(query)) : (await this.feed.read(reader)).page;
    res.status(200).json(page satisfies ChangesPageDto);
  }
}

function wantsEventStream(req: Request): boolean {
  return (req.get('Accept') ?? '').includes(EVENT_STREAM);
}
