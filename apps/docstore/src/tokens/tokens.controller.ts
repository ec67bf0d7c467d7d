import { ClientIdParam } from '../address/client-id.param';
import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { Actor, type AuditActor } from '@app/audit';
import { AuthEndpoint, RequireScopes } from '@app/auth';
import { ApiErrors } from '@app/errors';
import { ApiPaginatedResponse, paginate, PageQueryDto, PageRequest, type Paginated, type Paging } from '@app/pagination';
import type { Request } from 'express';
import type { DocstorePrincipal } from './docstore-principal';
import { DocstoreScope } from './docstore-scopes';
import { CREATE_TOKEN_EXAMPLES, CreateTokenDto, TokenCreatedDto, TokenDto, UPDATE_TOKEN_EXAMPLES, UpdateTokenDto } from './token.dto';
import { TokensService } from './tokens.service';
import type { TokenScopes } from './token-scopes';

@ApiTags('tokens')
@ApiBearerAuth()
@AuthEndpoint()
@RequireScopes(DocstoreScope.TokenManage)
@ApiErrors(401, 403, 429)
@Controller('api/v1/client/:client/tokens')
export class TokensController {
  constructor(private readonly tokens: TokensService) {}

  @Get()
  @ApiErrors(422)
  @ApiPaginatedResponse(TokenDto)
  async list(@ClientIdParam() client: string, @Query() _query: PageQueryDto, @PageRequest() paging: Paging): Promise<Paginated<TokenDto>> {
    const { rows, total } = await this.tokens.list(client, paging);
    return paginate(rows, total, paging);
  }

  @Post()
  @ApiErrors(400, 413, 415, 422)
  @ApiBody({ type: CreateTokenDto, examples: CREATE_TOKEN_EXAMPLES })
  @ApiCreatedResponse({ type: TokenCreatedDto })
  async create(@ClientIdParam() client: string, @Req() req: Request, @Body() body: CreateTokenDto, @Actor() actor: AuditActor): Promise<TokenCreatedDto> {
    const { plainText, token } = await this.tokens.create(client, callerScopes(req), body, actor);
    const { last_used_at: _lastUsed, ...details } = token; // not shown at creation
    return { message: 'Token created. Store it now: it will not be shown again.', token: plainText, token_details: details };
  }

  @Put(':tokenId')
  @ApiErrors(400, 404, 413, 415, 422)
  @ApiBody({ type: UpdateTokenDto, examples: UPDATE_TOKEN_EXAMPLES })
  @ApiOkResponse({ type: TokenDto })
  update(
    @ClientIdParam() client: string,
    @Param('tokenId') id: string,
    @Req() req: Request,
    @Body() body: UpdateTokenDto,
    @Actor() actor: AuditActor,
  ): Promise<TokenDto> {
    return this.tokens.update(client, callerScopes(req), id, body, actor);
  }

  @Delete(':tokenId')
  @ApiErrors(404)
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Revoked.' })
  async revoke(@ClientIdParam() client: string, @Param('tokenId') id: string, @Actor() actor: AuditActor): Promise<void> {
    await this.tokens.revoke(client, id, actor);
  }
}

/** The scopes of the token making the request (the guard has authenticated it with the docstore's store). */
function callerScopes(req: Request): TokenScopes {
  return (req.principal as DocstorePrincipal).scopes;
}
