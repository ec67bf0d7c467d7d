import { Controller, Get, Param, Query, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '@app/errors';
import { ApiPaginatedResponse, paginate, PageQueryDto, PageRequest, type Paginated, type Paging } from '@app/pagination';
import type { Request } from 'express';
import type { DocstorePrincipal } from '../tokens/docstore-principal';
import { ClientStatsDto, CollectionDto, StatsQueryDto } from './client-overview.dto';
import { ClientOverviewService } from './client-overview.service';

/**
 * Reads across the client's collections. They need `document:read`, checked here rather than by
 * `@RequireScopes`: a token granted it only by document rules sees only its rules' environments and contexts.
 */
@ApiTags('documents')
@ApiBearerAuth()
@ApiErrors(401, 403, 429)
@ApiParam({ name: 'client', description: "The client's UUID (the token's client).", schema: { type: 'string', format: 'uuid' } })
@Controller('api/v1/client/:client')
export class ClientOverviewController {
  constructor(private readonly overview: ClientOverviewService) {}

  @Get('collections')
  @ApiOperation({ summary: 'The environment, context and type triples holding live documents the token may read, with their counts, sorted' })
  @ApiErrors(422)
  @ApiPaginatedResponse(CollectionDto)
  async collections(
    @Param('client') _client: string,
    @Req() req: Request,
    @Query() _query: PageQueryDto,
    @PageRequest() paging: Paging,
  ): Promise<Paginated<CollectionDto>> {
    const principal = req.principal as DocstorePrincipal;
    const { rows, total } = await this.overview.collections(principal.ownerId, principal.scopes, paging);
    return paginate(rows, total, paging);
  }

  @Get('stats')
  @ApiOperation({ summary: 'Document writes and finished webhook deliveries the token may see, per UTC hour, for the last 24 hours or 7 days' })
  @ApiErrors(422)
  @ApiOkResponse({ type: ClientStatsDto })
  stats(@Param('client') _client: string, @Req() req: Request, @Query() query: StatsQueryDto): Promise<ClientStatsDto> {
    const principal = req.principal as DocstorePrincipal;
    return this.overview.stats(principal.ownerId, principal.scopes, query.window);
  }
}
